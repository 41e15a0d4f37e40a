// The proxy-model factory, and the MLP classifier behind the common interface.
#include "workloads/proxy/ProxyModel.hpp"

#include "workloads/proxy/Mlp.hpp"
#include "workloads/proxy/TinyTransformer.hpp"

#include <stdexcept>

namespace ccsim::workloads {

namespace {
class MlpProxy : public ProxyModel {
public:
  explicit MlpProxy(std::uint64_t seed) : m_(32, 64, 10, seed) {}
  const numerics::TensorLayout& layout() const override { return m_.layout(); }
  std::size_t size() const override { return m_.size(); }
  numerics::Vec initial_params(std::uint64_t seed) const override { return m_.initial_params(seed); }
  double batch_gradient(const numerics::Vec& p, int examples, std::uint64_t shard, std::uint64_t step,
                        numerics::Vec& grad) const override
  {
    Mat x;
    std::vector<int> y;
    m_.sample(examples, shard, step, x, y);
    return m_.loss(p, x, y, &grad);
  }
  double eval_loss(const numerics::Vec& p) const override { return m_.eval_loss(p); }

private:
  Mlp m_;
};
} // namespace

std::vector<std::string> proxy_model_names()
{
  return {"mlp", "tiny-transformer", "char-gpt"};
}

std::unique_ptr<ProxyModel> make_proxy_model(const std::string& name, std::uint64_t seed, const std::string& text)
{
  if (name == "mlp")
    return std::make_unique<MlpProxy>(seed);
  if (name == "tiny-transformer")
    return std::make_unique<TinyTransformer>(TransformerConfig{}, seed, text);
  if (name == "char-gpt")
    return std::make_unique<TinyTransformer>(char_gpt_config(), seed, text);
  throw std::invalid_argument("unknown model '" + name + "' (known: mlp, tiny-transformer, char-gpt)");
}

} // namespace ccsim::workloads
