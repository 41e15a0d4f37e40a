#pragma once
// The numeric half of the algorithm units: N in-process workers each compute gradients of a proxy model on
// their own data shard, communicate through the real compressors (numerics/), and update with the real
// optimizers. Deterministic per seed.

#include "numerics/CompressionKernels.hpp"
#include "numerics/Optimizers.hpp"

#include <string>
#include <utility>
#include <vector>

namespace ccsim::algorithms {

/// Pipeline stages when `pp` is not given (the training loop and `ccsim train`'s simulated cluster agree on it).
inline constexpr int kDefaultPipelineStages = 4;

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
  /// Print "step s/S loss L" on stderr at each evaluation when a run has lasted over 5 s (ccsim train sets it).
  bool progress = false;
  /// Where the compressors run their kernels: &numerics::cpu_kernels(), &numerics::cuda::cuda_kernels() (`ccsim
  /// train --backend cuda`), or a test's recording set. Not owned; it must outlive the run.
  const numerics::CompressionKernels* kernels = &numerics::cpu_kernels();
};

struct TrainResult {
  double final_loss = 0;                            // held-out loss after the last step
  std::vector<std::pair<int, double>> loss_curve;   // (step, held-out loss)
  std::vector<std::string> step_phase;              // phase of every step ("warmup", "compressed", "dense")
  std::uint64_t bytes_per_worker = 0;               // bytes one worker put on the wire (packed buffers)
  double wall_s = 0;
};

/// Trains; invalid algorithm/model/sizes throw std::invalid_argument with a one-line reason.
TrainResult train(const TrainConfig& config);

/// Models `ccsim train` knows.
std::vector<std::string> proxy_models();

} // namespace ccsim::algorithms
