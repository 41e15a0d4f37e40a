// The transformer proxies' hand-written backward against central finite differences, on small configurations of
// both (tiny-transformer and char-gpt), and what makes char-gpt the proxy of the 1-bit claims: no coordinate whose
// gradient is identically zero.
#include "workloads/proxy/TinyTransformer.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace ccsim;
using namespace ccsim::workloads;

namespace {
const char* kText = "the quick brown fox jumps over the lazy dog\nthe end. ";

TransformerConfig small(TransformerConfig c)
{
  c.vocab = 96, c.context = 6, c.width = 8, c.heads = 2, c.layers = 2, c.hidden = 16;
  return c;
}

/// Every tensor's analytic gradient against central differences at three elements.
void check_gradient(const TinyTransformer& model, const std::vector<int>& seq)
{
  numerics::Vec p = model.initial_params(11);
  for (long i = 0; i < p.size(); ++i) // larger weights than the 0.02 init, so every path carries gradient
    p[i] += 0.2f * std::sin(0.7f * static_cast<float>(i));
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
} // namespace

TEST_CASE("TinyTransformer: the analytic gradient of every tensor matches finite differences", "[workloads]")
{
  const TinyTransformer model(small({}), 3, kText);
  check_gradient(model, {84, 72, 69, 0, 81, 85, 73});
}

TEST_CASE("TinyTransformer: char-gpt's analytic gradient (GELU / no biases / tied output) matches finite differences",
          "[workloads]")
{
  const TinyTransformer model(small(char_gpt_config()), 3, kText);
  // The text's 29 distinct characters (26 letters less the absent ones, space, newline, '.') are the vocabulary.
  CHECK(model.config().vocab == 29);
  check_gradient(model, {20, 8, 5, 0, 17, 21, 9});
}

TEST_CASE("TinyTransformer: the default models have 0.2-2 M parameters in many tensors and start near ln(vocab)",
          "[workloads]")
{
  const TinyTransformer tiny;
  CHECK(tiny.size() > 200000);
  CHECK(tiny.size() < 2000000);
  CHECK(tiny.layout().size() > 30);
  // Initial logits are small (0.02 weights): the loss is the uniform one, ln 96 = 4.56, within 0.1.
  CHECK(tiny.eval_loss(tiny.initial_params(1)) == Approx(std::log(96.0)).margin(0.1));

  // char-gpt on GPL-3: its 76 distinct bytes; 2 x 8 weight and gain tensors, 2 embeddings and the final gain.
  const TinyTransformer gpt(char_gpt_config());
  CHECK(gpt.config().vocab == 76);
  CHECK(gpt.layout().size() == 19);
  CHECK(gpt.size() == 76 * 96 + 32 * 96 + 2 * (4 * 96 * 96 + 2 * 96 + 2 * 96 * 384) + 96);
  CHECK(gpt.eval_loss(gpt.initial_params(1)) == Approx(std::log(76.0)).margin(0.1));
}

TEST_CASE("TinyTransformer: every char-gpt coordinate learns - tiny-transformer's key biases and unused rows cannot",
          "[workloads]")
{
  // Four batches' gradients after a few plain SGD steps (so that no coordinate is still at a symmetric start). A
  // coordinate whose gradient is 0 on every batch (or fp32 rounding noise, 1e-11 against a mean of 1e-3) cannot learn,
  // yet 1-bit compression gives it its chunk's scale (issue 30). tiny-transformer has three kinds: key biases (softmax
  // ignores a shift of every score), the rows of characters absent from the batches, and dead ReLU units; char-gpt
  // (GELU, tied output rows, no biases) has none: its smallest is 2e-4 of the mean.
  auto zero_coordinates = [](const TinyTransformer& m, const std::string& prefix) {
    numerics::Vec p = m.initial_params(1), g;
    for (int step = 0; step < 3; ++step) {
      m.batch_gradient(p, 8, 0, static_cast<std::uint64_t>(step), g);
      p -= 0.5f * g;
    }
    numerics::Vec sum = numerics::Vec::Zero(p.size());
    for (int shard = 0; shard < 4; ++shard) {
      m.batch_gradient(p, 8, static_cast<std::uint64_t>(shard), 5, g);
      sum += g.cwiseAbs();
    }
    const float negligible = 1e-6f * sum.mean();
    long zeros             = 0;
    for (const auto& t : m.layout())
      if (t.name.rfind(prefix, 0) == 0)
        for (std::size_t i = 0; i < t.size; ++i)
          zeros += sum[static_cast<long>(t.offset + i)] < negligible;
    return zeros;
  };
  const TinyTransformer gpt(char_gpt_config());
  CHECK(zero_coordinates(gpt, "") == 0);
  const TinyTransformer tiny;
  CHECK(zero_coordinates(tiny, "l0.wk_b") == 96);
  CHECK(zero_coordinates(tiny, "l1.wk_b") == 96);
  CHECK(zero_coordinates(tiny, "tok_emb") >= 21 * 96); // the 21 printable characters GPL-3 never uses, and more
  CHECK(zero_coordinates(tiny, "l0.b1") > 0);          // dead ReLU units
}
