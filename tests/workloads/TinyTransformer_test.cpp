// The tiny transformer's hand-written backward against central finite differences, on a small configuration.
#include "workloads/proxy/TinyTransformer.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace ccsim;
using namespace ccsim::workloads;

TEST_CASE("TinyTransformer: the analytic gradient of every tensor matches finite differences", "[workloads]")
{
  const TransformerConfig small{96, 6, 8, 2, 2, 16}; // vocab 96, context 6, width 8, 2 heads, 2 layers, MLP 16
  const TinyTransformer model(small, 3, "the quick brown fox jumps over the lazy dog\nthe end. ");
  numerics::Vec p = model.initial_params(11);
  for (long i = 0; i < p.size(); ++i) // larger weights than the 0.02 init, so every path carries gradient
    p[i] += 0.2f * std::sin(0.7f * static_cast<float>(i));
  const std::vector<int> seq = {84, 72, 69, 0, 81, 85, 73};
  numerics::Vec grad = numerics::Vec::Zero(p.size());
  model.sequence_loss(p, seq, &grad);
  for (const auto& t : model.layout()) {
    for (std::size_t k = 0; k < std::min<std::size_t>(t.size, 3); ++k) {
      const long i = static_cast<long>(t.offset + (k * 7919) % t.size);
      numerics::Vec plus = p, minus = p;
      plus[i] += 1e-2f;
      minus[i] -= 1e-2f;
      const double numeric = (model.sequence_loss(plus, seq, nullptr) - model.sequence_loss(minus, seq, nullptr)) / 2e-2;
      INFO(t.name << " element " << i - static_cast<long>(t.offset));
      CHECK(grad[i] == Approx(numeric).margin(2e-3).epsilon(0.03));
    }
  }
}

TEST_CASE("TinyTransformer: the default model has 0.2-2 M parameters in many tensors and starts near ln(96)", "[workloads]")
{
  const TinyTransformer model;
  CHECK(model.size() > 200000);
  CHECK(model.size() < 2000000);
  CHECK(model.layout().size() > 30);
  // Initial logits are small (0.02 weights): the loss is the uniform one, ln 96 = 4.56, within 0.1.
  CHECK(model.eval_loss(model.initial_params(1)) == Approx(std::log(96.0)).margin(0.1));
}
