#pragma once
// What a data-parallel convergence run needs of a proxy model: a flat parameter vector with named tensors, the
// gradient of a worker's batch from its own data shard, and a held-out loss. Implemented by the MLP classifier and
// the two transformer language models.

#include "numerics/OptimizerTypes.hpp"

#include <memory>
#include <string>
#include <vector>

namespace ccsim::workloads {

class ProxyModel {
public:
  virtual ~ProxyModel() = default;
  virtual const numerics::TensorLayout& layout() const = 0;
  virtual std::size_t size() const = 0;
  virtual numerics::Vec initial_params(std::uint64_t seed) const = 0;
  /// Mean loss over `examples` drawn from shard `shard` at `step`; writes its gradient into `grad`.
  virtual double batch_gradient(const numerics::Vec& params, int examples, std::uint64_t shard, std::uint64_t step,
                                numerics::Vec& grad) const = 0;
  virtual double eval_loss(const numerics::Vec& params) const = 0;
};

/// "mlp", "tiny-transformer" or "char-gpt" (workloads/proxy/TinyTransformer.hpp); anything else throws
/// std::invalid_argument listing them.
std::unique_ptr<ProxyModel> make_proxy_model(const std::string& name, std::uint64_t seed, const std::string& text = "");
std::vector<std::string> proxy_model_names();

} // namespace ccsim::workloads
