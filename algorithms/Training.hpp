#pragma once
// The numeric half of the algorithm units: N in-process workers each compute gradients of a proxy model on
// their own data shard, communicate through the real compressors (numerics/), and update with the real
// optimizers. Deterministic per seed.

#include "numerics/CompressionKernels.hpp"
#include "numerics/Optimizers.hpp"

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ccsim::algorithms {

/// Pipeline stages when `pp` is not given (the training loop and `ccsim train`'s simulated cluster agree on it).
inline constexpr int kDefaultPipelineStages = 4;
/// The learning rate of every proxy run without --param lr (data-parallel, sharded and pipeline alike): a rate that
/// trains the proxy models with Adam, not one any of the papers uses for its own model and optimizer.
inline constexpr double kDefaultLr = 0.003;

struct TrainConfig {
  std::string algorithm = "adam";
  std::string model = "mlp";
  int workers = 16;
  int steps = 1000;
  int global_batch = 512;
  std::uint64_t seed = 1;
  /// lr, beta1, ... Defaults: lr 0.003; bias_correction 0 (the papers' BertAdam baseline has none, like 1-bit
  /// Adam's DeepSpeed implementation, notes §2); freeze_step 15% of the steps (1-bit Adam §7.1: 15-25%).
  numerics::Hyper hyper;
  int eval_every = 10;
  /// Called after every step with the newest held-out loss (ccsim train draws its progress line from it, and stops on
  /// a signal or its time limit). Returning false stops the run after this step: the result then ends there
  /// (TrainResult::steps_done < steps), its loss curve closing with the held-out loss at that step. Empty: no calls.
  std::function<bool(int step, double held_out_loss)> on_step;
  /// Where the compressors run their kernels: &numerics::cpu_kernels(), &numerics::cuda::cuda_kernels() (`ccsim
  /// train --backend cuda`), or a test's recording set. Not owned; it must outlive the run.
  const numerics::CompressionKernels* kernels = &numerics::cpu_kernels();
  /// The transformer's corpus (empty: GPL-3; the mlp has none).
  std::string text;
  /// Start from these parameters instead of the model's random initialisation (fine-tuning a pre-trained model,
  /// `ccsim train --task finetune`); null: the initialisation. Its size must be the model's.
  std::shared_ptr<const numerics::Vec> initial;
  /// When set, a data-parallel run copies its final parameters (worker 0's) here: the pre-training of --task finetune.
  numerics::Vec* keep_params = nullptr;
};

struct TrainResult {
  double final_loss = 0;                            // held-out loss after the last step
  std::vector<std::pair<int, double>> loss_curve;   // (step, held-out loss)
  std::vector<std::string> step_phase;              // phase of every step ("warmup", "compressed", "dense")
  std::uint64_t bytes_per_worker = 0;               // bytes one worker put on the wire (packed buffers)
  int steps_done = 0;                               // == steps unless on_step stopped the run early
  int diverged_step = -1;                           // first evaluated step whose held-out loss is not finite, or -1
  double wall_s = 0;
};

/// Trains; invalid algorithm/model/sizes throw std::invalid_argument with a one-line reason.
TrainResult train(const TrainConfig& config);

/// Models `ccsim train` knows.
std::vector<std::string> proxy_models();

} // namespace ccsim::algorithms
