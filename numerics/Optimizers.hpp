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

protected:
  std::uint64_t bytes_ = 0;
};

/// sgd, adam, lamb, onebit-adam, naive-1bit-adam, onebit-lamb, lamb-basic-1bit, slamb, topk-lamb, randk-lamb
/// (numerics/LayerwiseOptimizers.hpp for the last five). Unknown names or keys throw std::invalid_argument.
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
void adam_update(Vec& x, const Vec& g, AdamState& s, double lr, double beta1, double beta2, double eps,
                 double weight_decay, bool bias_correction);

/// LAMB (1-bit LAMB eq. 1): per tensor, update u = m/(sqrt(v)+eps) + wd·x, x -= lr · clip(||x||/||u||, c_min, c_max) · u.
void lamb_update(Vec& x, const Vec& g, AdamState& s, const TensorLayout& layout, double lr, double beta1, double beta2,
                 double eps, double weight_decay, double c_min, double c_max);

} // namespace ccsim::numerics
