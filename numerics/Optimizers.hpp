#pragma once
// Optimizers for N in-process data-parallel workers. Each step takes every worker's gradient and parameter
// copy; a synchronous algorithm leaves the copies identical. Communication goes through the real compressors,
// and bytes_sent_per_worker() counts what they packed. State is public for inspection in tests.

#include "numerics/CompressedAllreduce.hpp"
#include "numerics/CompressionKernels.hpp"

#include <Eigen/Core>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ccsim::numerics {

using Vec = Eigen::VectorXf;

/// The flat parameter vector split into tensors (layer-wise methods adapt per tensor).
struct TensorSlice {
  std::string name;
  std::size_t offset;
  std::size_t size;
};
using TensorLayout = std::vector<TensorSlice>;

using Hyper = std::map<std::string, double>;

/// h[key] if present, else `fallback`.
double hyper_or(const Hyper& h, const char* key, double fallback);

class DistributedOptimizer {
public:
  virtual ~DistributedOptimizer() = default;
  virtual void step(std::vector<Vec>& params, const std::vector<Vec>& grads) = 0;
  virtual std::uint64_t bytes_sent_per_worker() const { return bytes_; }
  virtual std::string phase() const { return "dense"; }
  /// The learning-rate schedule's factor for the coming steps (hyper "lr" x this); 1 = the constant rate.
  void set_lr_scale(double scale) { lr_scale_ = scale; }

protected:
  std::uint64_t bytes_ = 0;
  double lr_scale_ = 1;
};

/// sgd, adam, lamb, onebit-adam, naive-1bit-adam, onebit-lamb, lamb-basic-1bit, slamb, topk-lamb, randk-lamb
/// (numerics/LayerwiseOptimizers.hpp for the last five). Unknown names or keys throw std::invalid_argument.
/// adam and naive-1bit-adam apply hyper "adam_variant" (an AdamVariant index; apex when absent); onebit-adam's
/// warm-up is DeepSpeed adam.py's own apex-form Adam without bias correction. Like onebit-lamb, onebit-adam uses
/// every gradient: DeepSpeed's first step() only initialises (adam.py l.241–245) but counts towards freeze_step, so
/// at the same freeze_step ccsim makes one warm-up update more (freeze_step against freeze_step - 1); both compress
/// from call freeze_step + 1. To replay a DeepSpeed run, drop its first gradient and pass freeze_step - 1.
/// The compressors run their kernels on `kernels` (a static set, or one that outlives the optimizer); the dense
/// optimizers compress nothing and call none.
std::unique_ptr<DistributedOptimizer> make_distributed_optimizer(const std::string& name, const TensorLayout& layout,
                                                                 std::size_t workers, const Hyper& hyper,
                                                                 const CompressionKernels& kernels = cpu_kernels());

/// The gradient average an uncompressed allreduce gives, with the fp32 ring's bytes per worker: 2(W-1)/W x 4n.
Vec average(const std::vector<Vec>& v);
std::uint64_t ring_allreduce_bytes(std::size_t numel, std::size_t workers);

/// Adam update of one parameter vector (no communication): m, v updated; bias correction optional
/// (1-bit Adam's DeepSpeed implementation has none, notes §2).
struct AdamState {
  Vec m, v;
  long step = 0;
};

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

void adam_update(Vec& x, const Vec& g, AdamState& s, double lr, double beta1, double beta2, double eps,
                 double weight_decay, bool bias_correction, AdamVariant variant = AdamVariant::APEX);

/// LAMB (1-bit LAMB eq. 1): per tensor, update u = m/(sqrt(v)+eps) + wd·x, x -= lr · clip(||x||/||u||, c_min, c_max) · u.
void lamb_update(Vec& x, const Vec& g, AdamState& s, const TensorLayout& layout, double lr, double beta1, double beta2,
                 double eps, double weight_decay, double c_min, double c_max);

} // namespace ccsim::numerics
