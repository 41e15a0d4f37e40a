#pragma once
// The non-data-parallel training loops behind algorithms::train: sharded DP (SDP4Bit and its comparisons) and
// pipelines (AQ-SGD, DirectQ, fp32). Each algorithm's descriptor calls its loop with the same communication its plan
// simulates (algorithms/sharded/ShardedAlgorithms.cpp, algorithms/pipeline/PipelineAlgorithms.cpp).

#include "algorithms/Training.hpp"
#include "algorithms/pipeline/PipelinePlan.hpp"
#include "algorithms/sharded/ShardedPlan.hpp"


namespace ccsim::algorithms {

/// Sharded data parallelism with `weights` gathered and `grads` reduced as the plan of that pair sends them.
/// Hyper: lr, weight_decay, gpus_per_node (4).
TrainResult train_sharded(const TrainConfig& config, WeightComm weights, GradComm grads);
/// A pipeline sending activations as `comm` says. Hyper: lr, pp (4), fw_bits (2), bw_bits (4).
TrainResult train_pipeline(const TrainConfig& config, ActivationComm comm);

/// After step `step` of every loop: notes the first evaluated step whose held-out loss is not finite
/// (result.diverged_step), then asks config.on_step whether to go on. When not, closes the loss curve at this step
/// (calling `eval` unless the step was just evaluated) and returns false; the loop then breaks.
bool go_on_after(const TrainConfig& config, int step, TrainResult& result, const std::function<double()>& eval);

/// config.initial when given (its size checked against the model's), else `fresh`.
numerics::Vec initial_params_of(const TrainConfig& config, numerics::Vec fresh);

} // namespace ccsim::algorithms
