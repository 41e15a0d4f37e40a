#pragma once
// The types every distributed optimizer shares: parameter and gradient vectors, the tensor layout of the flat
// parameter vector, hyper-parameters by name, Adam's per-worker state, and the DistributedOptimizer interface the
// training loop drives. The optimizers themselves are numerics/Optimizers.hpp and numerics/LayerwiseOptimizers.hpp.

#include <Eigen/Core>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ccsim::numerics {

using Vec = Eigen::VectorXf;

/// The flat parameter vector split into tensors (layer-wise methods adapt per tensor).
struct TensorSlice {
  std::string name;
  std::size_t offset;
  std::size_t size;
  /// The tensor's first dimension when its memory is read as a row-major rows x (size / rows) matrix, as torch's
  /// tensor.view(shape[0], -1) reads it; 0 for a vector. Only the low-rank compressor (numerics/PowerSgd.hpp) needs it.
  std::size_t rows = 0;
};
using TensorLayout = std::vector<TensorSlice>;

using Hyper = std::map<std::string, double>;

/// h[key] if present, else `fallback`.
inline double hyper_or(const Hyper& h, const char* key, double fallback)
{
  const auto it = h.find(key);
  return it == h.end() ? fallback : it->second;
}

/// Adam's state of one parameter vector: first and second moments, and the steps taken.
struct AdamState {
  Vec m, v;
  long step = 0;
};

/// N in-process data-parallel workers' optimizer. Each step takes every worker's gradient and parameter copy; a
/// synchronous algorithm leaves the copies identical.
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

} // namespace ccsim::numerics
