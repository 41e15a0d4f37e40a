#pragma once
// The non-data-parallel training loops behind algorithms::train: sharded DP (SDP4Bit and its comparisons) and
// pipelines (AQ-SGD, DirectQ, fp32).

#include "algorithms/Training.hpp"

#include <string>
#include <vector>

namespace ccsim::algorithms {

/// megatron-dp, sdp4bit, qwd, qw, tlq, tlq-hs, ulq, zeropp. Hyper: lr, weight_decay, gpus_per_node (4).
TrainResult train_sharded(const TrainConfig& config);
/// fp32-pipeline, directq, aq-sgd. Hyper: lr, pp (4), fw_bits (2), bw_bits (4).
TrainResult train_pipeline(const TrainConfig& config);

/// After step `step` of every loop: notes the first evaluated step whose held-out loss is not finite
/// (result.diverged_step), then asks config.on_step whether to go on. When not, closes the loss curve at this step
/// (calling `eval` unless the step was just evaluated) and returns false; the loop then breaks.
bool go_on_after(const TrainConfig& config, int step, TrainResult& result, const std::function<double()>& eval);

/// config.initial when given (its size checked against the model's), else `fresh`.
numerics::Vec initial_params_of(const TrainConfig& config, numerics::Vec fresh);

/// The algorithms each loop trains, in the order `ccsim list` shows them.
const std::vector<std::string>& sharded_training_algorithms();
const std::vector<std::string>& pipeline_training_algorithms();
bool is_sharded(const std::string& algorithm);
bool is_pipeline(const std::string& algorithm);

} // namespace ccsim::algorithms
