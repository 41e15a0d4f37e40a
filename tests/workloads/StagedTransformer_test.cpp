// The pipelined transformer's stages against the unstaged model: chaining them must give the whole-sequence loss
// and its gradient (whose own correctness the finite-difference test of TinyTransformer_test.cpp establishes).
#include "workloads/proxy/StagedTransformer.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace ccsim;
using namespace ccsim::workloads;

namespace {
const TransformerConfig kSmall{96, 6, 8, 2, 2, 16}; // vocab 96, context 6, width 8, 2 heads, (layers), MLP 16
const char* kText = "the quick brown fox jumps over the lazy dog\nthe end. pack my box with five dozen liquor jugs.";
} // namespace

TEST_CASE("StagedTransformer: the stages compose to the whole model's loss and gradient", "[workloads]")
{
  // 3 stages over the 4 units of a 2-layer model: embeddings | block 0 | block 1 + head. char-gpt's output projection
  // is its token embedding, on the first and the last stage: both stages' gradients add into the one tensor.
  TransformerConfig gpt = char_gpt_config();
  gpt.context = 6, gpt.width = 8, gpt.heads = 2, gpt.hidden = 16;
  const auto config = GENERATE_COPY(kSmall, gpt);
  const StagedTransformer model(3, 10, 5, config, kText);
  REQUIRE(model.whole().config().layers == 2);
  numerics::Vec p = model.initial_params(7);
  for (long i = 0; i < p.size(); ++i) // larger weights than the 0.02 init, so every path carries gradient
    p[i] += 0.2f * std::sin(0.3f * static_cast<float>(i));
  const std::vector<int> ids = {0, 4, 9};

  // Pipeline: forward through the stages, cross-entropy per position, backward stage by stage.
  std::vector<Mat> in(3);
  in[0] = model.inputs(ids);
  REQUIRE(in[0].cols() == 3 * 6);
  for (int s = 0; s < 2; ++s)
    in[static_cast<std::size_t>(s) + 1] = model.forward(p, s, in[static_cast<std::size_t>(s)]);
  REQUIRE(in[1].rows() == 8); // the residual stream crosses the cut: width x (examples · context)
  Mat d;
  const double staged_loss = model.loss(model.forward(p, 2, in[2]), model.labels(ids), &d);
  numerics::Vec staged_grad = numerics::Vec::Zero(p.size());
  for (int s = 2; s >= 0; --s)
    d = model.backward(p, s, in[static_cast<std::size_t>(s)], d, staged_grad);

  // Whole model: the mean over the examples of each window's mean next-token loss, and its gradient.
  double whole_loss        = 0;
  numerics::Vec whole_grad = numerics::Vec::Zero(p.size());
  for (int i : ids) {
    const auto window = model.whole().train_window(i, 10);
    REQUIRE(window.size() == 7);
    whole_loss += model.whole().sequence_loss(p, window, &whole_grad) / 3.0;
  }
  whole_grad /= 3.0f;
  // Same operations in a different summation order: fp32 rounding only.
  CHECK(staged_loss == Approx(whole_loss).epsilon(1e-5));
  REQUIRE(whole_grad.norm() > 0);
  for (const auto& t : model.whole().layout()) {
    const auto sg = staged_grad.segment(static_cast<long>(t.offset), static_cast<long>(t.size));
    const auto wg = whole_grad.segment(static_cast<long>(t.offset), static_cast<long>(t.size));
    INFO(t.name);
    CHECK((sg - wg).norm() <= 1e-4 * wg.norm() + 1e-7);
  }
}

TEST_CASE("StagedTransformer: stages split the unit chain and labels are the next tokens", "[workloads]")
{
  // pp = 4 on the 2-layer model: embeddings | block 0 | block 1 | head; only the last stage emits vocabulary logits.
  const StagedTransformer model(4, 8, 1, kSmall, kText);
  CHECK(model.stages() == 4);
  CHECK(model.whole().config().layers == 2);
  const numerics::Vec p = model.initial_params(1);
  Mat a                 = model.inputs({0, 1});
  for (int s = 0; s < 4; ++s) {
    a = model.forward(p, s, a);
    CHECK(a.rows() == (s == 3 ? 96 : 8));
    CHECK(a.cols() == 2 * 6);
  }
  // More stages than units: the model grows to stages - 2 blocks.
  CHECK(StagedTransformer(6, 8, 1, kSmall, kText).whole().config().layers == 4);
  CHECK(model.positions() == 6);
  CHECK(model.train_examples() == 8);
  const auto tokens = model.inputs({2});
  const auto labels = model.labels({2});
  const auto window = model.whole().train_window(2, 8);
  for (int t = 0; t < 6; ++t) {
    CHECK(tokens(0, t) == static_cast<float>(window[static_cast<std::size_t>(t)]));
    CHECK(labels[static_cast<std::size_t>(t)] == window[static_cast<std::size_t>(t) + 1]);
  }
  CHECK_THROWS_AS(StagedTransformer(1, 8, 1, kSmall, kText), std::invalid_argument);
}
