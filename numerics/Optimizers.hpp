#pragma once
// Optimizers for N in-process data-parallel workers: the update formulas (Adam in three variants, LAMB) and the
// optimizers that average, or compress, what the workers send before applying them — plain data parallelism,
// 1-bit Adam, and the naive 1-bit gradient Adam. Communication goes through the real compressors, and
// bytes_sent_per_worker() counts what they packed. State is public for inspection in tests. The layer-wise ones are
// numerics/LayerwiseOptimizers.hpp; algorithms/OptimizerFactory.hpp builds any of them by algorithm name.

#include "numerics/CompressedAllreduce.hpp"
#include "numerics/CompressionKernels.hpp"
#include "numerics/OptimizerTypes.hpp"

#include <Eigen/Core>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ccsim::numerics {

/// The gradient average an uncompressed allreduce gives, with the fp32 ring's bytes per worker: 2(W-1)/W x 4n.
Vec average(const std::vector<Vec>& v);
std::uint64_t ring_allreduce_bytes(std::size_t numel, std::size_t workers);

/// Which Adam formula adam_update applies. They differ in where eps sits and what weight decay does, so the same
/// hyper-parameters give different trajectories; pick the one the run to be matched used.
///   APEX  — apex's legacy fused Adam (csrc/fused_adam_cuda_kernel.cu: adam_cuda_kernel in ADAM_MODE_1 "eps
///           outside square root", step_size from fused_adam_cuda), the formula DeepSpeed's 1-bit Adam/LAMB and
///           BertAdam share, and ccsim's default:
///             m = b1·m + (1-b1)·g,  v = b2·v + (1-b2)·g²,
///             x -= s · (m / (sqrt(v) + eps) + wd·x),  s = lr·sqrt(1-b2^t)/(1-b1^t)  (s = lr without correction).
///           eps is added to sqrt(v) BEFORE the bias correction (effectively eps·sqrt(1-b2^t) in torch's terms) and
///           the decay is multiplied by the corrected step size.
///   TORCH — torch.optim.Adam (L2 penalty): g' = g + wd·x feeds both moments, x -= (lr/(1-b1^t)) · m /
///           (sqrt(v)/sqrt(1-b2^t) + eps).
///   ADAMW — torch.optim.AdamW (decoupled decay): x *= 1 - lr·wd first, then torch's Adam step on g.
/// With bias_correction off, TORCH and ADAMW take both corrections as 1 (torch itself has no such switch).
enum class AdamVariant { APEX = 0, TORCH = 1, ADAMW = 2 };
/// The names of the variants in enum order ("apex", "torch", "adamw"): the words `--param adam_variant` takes.
const std::vector<std::string>& adam_variant_names();
/// hyper["adam_variant"] as the enum (APEX when absent); any other index throws std::invalid_argument.
AdamVariant adam_variant_of(const Hyper& hyper);

/// Adam update of one parameter vector (no communication): m, v updated; bias correction optional
/// (1-bit Adam's DeepSpeed implementation has none, notes §2).
void adam_update(Vec& x, const Vec& g, AdamState& s, double lr, double beta1, double beta2, double eps,
                 double weight_decay, bool bias_correction, AdamVariant variant = AdamVariant::APEX);

/// LAMB (1-bit LAMB eq. 1): per tensor, update u = m/(sqrt(v)+eps) + wd·x, x -= lr · clip(||x||/||u||, c_min, c_max) · u.
void lamb_update(Vec& x, const Vec& g, AdamState& s, const TensorLayout& layout, double lr, double beta1, double beta2,
                 double eps, double weight_decay, double c_min, double c_max);

/// Uncompressed data parallelism: average the gradients (fp32 ring allreduce bytes), then each worker updates.
/// `kind` "sgd" (momentum SGD: m = beta1·m + g, x -= lr·m), "adam" (adam_update with hyper "adam_variant") or
/// "lamb" (lamb_update).
class DenseOptimizer : public DistributedOptimizer {
public:
  DenseOptimizer(std::string kind, TensorLayout layout, std::size_t workers, const Hyper& h);
  void step(std::vector<Vec>& params, const std::vector<Vec>& grads) override;

protected:
  /// Every worker's update with the reduced gradient `g` (what step() does after averaging).
  void update(std::vector<Vec>& params, const Vec& g);

private:
  std::string kind_;
  TensorLayout layout_;
  std::size_t workers_;
  Hyper h_;
  std::vector<AdamState> state_;
};

/// What one compressed allreduce of 1-bit Adam covers. DeepSpeed's OnebitAdam compresses each parameter it is
/// given separately, with its own padding, scales and error buffers (fp16/onebit/adam.py: the loop over
/// group['params'] l.154, the per-parameter buffers l.172–181, compressed_allreduce l.212–216;
/// deepspeedai/DeepSpeed at 38327e07), so what a "parameter" is decides the granularity:
///   MODEL  — one flat buffer for the whole model: DeepSpeed under fp16, whose FP16_Optimizer hands the optimizer one
///            flat fp32 master tensor per parameter group (runtime/fp16/fused_optimizer.py l.73–86; engine.py
///            l.1549–1550 wraps 1-bit Adam in it), here with one group; ccsim's default;
///   TENSOR — one per parameter tensor: DeepSpeed in fp32, where the engine hands OnebitAdam the model's parameters
///            (runtime/engine.py l.1452–1458), or any torch training loop that calls OnebitAdam(model.parameters()).
///            Each tensor gets its own RMS scale, so a tensor whose momentum is small next to the others' is not sent
///            at their scale.
enum class CompressionUnit { MODEL = 0, TENSOR = 1 };
/// The words `--param compression_unit` takes, in enum order ("model", "tensor").
const std::vector<std::string>& compression_unit_names();

/// The compressed allreduces of one optimizer: one per unit of hyper "compression_unit" (MODEL when absent; any other
/// index throws std::invalid_argument) over `layout` (the units are the layout's tensors, or one slice to its end).
class CompressedUnits {
public:
  CompressedUnits(const TensorLayout& layout, std::size_t workers, const Hyper& h, const CompressionKernels& kernels);
  /// buffers[w] (the whole flat vector each) are replaced unit by unit by the units' compressed averages.
  void run(const std::vector<float*>& buffers);
  /// Bytes one worker has put on the wire so far, over every unit.
  std::uint64_t bytes_sent_per_worker() const;
  const std::vector<CompressedAllreduce>& allreduces() const { return ars_; }

private:
  TensorLayout units_;
  std::vector<CompressedAllreduce> ars_;
};

/// 1-bit Adam (1-bit Adam Algorithm 1; DeepSpeed fp16/onebit/adam.py, notes §2): Adam on averaged gradients for
/// freeze_step steps, then the variance is frozen and each worker's LOCAL momentum m = b1·m + (1-b1)·g_local
/// goes through the compressed allreduce with error feedback (one per compression unit: CompressionUnit);
/// x -= lr · m / (sqrt(v) + eps). No bias correction. The warm-up is DeepSpeed adam.py's own apex-form Adam without
/// bias correction. Like onebit-lamb, it uses every gradient: DeepSpeed's first step() only initialises (adam.py
/// l.241–245) but counts towards freeze_step, so at the same freeze_step ccsim makes one warm-up update more
/// (freeze_step against freeze_step - 1); both compress from call freeze_step + 1. To replay a DeepSpeed run, drop
/// its first gradient and pass freeze_step - 1.
/// `n` is the length of the parameter vector; the compressor runs its kernels on `kernels` (a static set, or one
/// that outlives the optimizer).
class OnebitAdam : public DistributedOptimizer {
public:
  /// One compressed allreduce for the whole flat vector of `n` parameters.
  OnebitAdam(std::size_t n, std::size_t workers, const Hyper& h, const CompressionKernels& kernels = cpu_kernels());
  /// One compressed allreduce per compression unit (CompressionUnit, hyper "compression_unit"): the whole vector
  /// (layout's end), or each tensor of `layout`.
  OnebitAdam(const TensorLayout& layout, std::size_t workers, const Hyper& h,
             const CompressionKernels& kernels = cpu_kernels());
  std::string phase() const override { return steps_ < freeze_ ? "warmup" : "compressed"; }
  void step(std::vector<Vec>& params, const std::vector<Vec>& grads) override;
  const AdamState& state(std::size_t w) const { return state_[w]; }
  /// The compressed allreduces, one per unit, in layout order.
  const std::vector<CompressedAllreduce>& allreduces() const { return ar_.allreduces(); }

private:
  std::size_t workers_;
  Hyper h_;
  std::vector<AdamState> state_;
  CompressedUnits ar_;
  long freeze_;
  long steps_ = 0;
  std::uint64_t warm_bytes_ = 0;
  Vec mask_; // the momentum mask (numerics/MomentumMask.hpp); empty = none
};

/// The naive baseline of 1-bit Adam §3.2 / Fig. 1: error-feedback 1-bit compression of the GRADIENTS, then
/// Adam (momentum and variance, hyper "adam_variant") on the compressed average. The variance sees sign noise, which
/// is why it fails.
class NaiveOnebitAdam : public DistributedOptimizer {
public:
  NaiveOnebitAdam(std::size_t n, std::size_t workers, const Hyper& h,
                  const CompressionKernels& kernels = cpu_kernels());
  /// One compressed allreduce per compression unit (hyper "compression_unit"), as OnebitAdam.
  NaiveOnebitAdam(const TensorLayout& layout, std::size_t workers, const Hyper& h,
                  const CompressionKernels& kernels = cpu_kernels());
  std::string phase() const override { return "compressed"; }
  void step(std::vector<Vec>& params, const std::vector<Vec>& grads) override;

private:
  std::size_t workers_;
  Hyper h_;
  std::vector<AdamState> state_;
  CompressedUnits ar_;
};

} // namespace ccsim::numerics
