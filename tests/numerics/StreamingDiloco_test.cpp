// Streaming DiLoCo's pieces against hand-worked values: E3M0 rounding, the strided fragments, the schedule of
// sends and applications, and its reduction to DiLoCo (P = 1, τ = 0, α = 0, fp32) bit for bit.
#include "numerics/Diloco.hpp"
#include "numerics/Fp4.hpp"
#include "numerics/Optimizers.hpp"
#include "numerics/StreamingDiloco.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>

using namespace ccsim::numerics;

TEST_CASE("E3M0 rounds to 0 and absmax·2^-k for k = 0..6, the nearest code", "[numerics][streaming]")
{
  // absmax 8: codes 8, 4, 2, 1, 0.5, 0.25, 0.125 and 0. 5.9 lies below the 4-8 midpoint 6 -> 4; 6 -> 8 (tie up);
  // -2.9 -> -2 (midpoint 3); 0.07 -> 0.125 (above 0.0625, the midpoint to 0); 0.06 -> 0; 0 -> 0.
  const float x[] = {8, 5.9f, 6, -2.9f, 0.07f, 0.06f, 0, -8};
  float out[8];
  quantize_e3m0(x, 8, out);
  const float want[] = {8, 4, 8, -2, 0.125f, 0, 0, -8};
  for (int i = 0; i < 8; ++i) {
    INFO(i);
    CHECK(out[i] == want[i]);
  }
  // A tensor of zeros stays zeros; one with a NaN is left as it is (no finite scale).
  const float zeros[] = {0, 0};
  quantize_e3m0(zeros, 2, out);
  CHECK(out[0] == 0);
  const float bad[] = {1, std::numeric_limits<float>::quiet_NaN()};
  quantize_e3m0(bad, 2, out);
  CHECK(out[0] == 1);
  CHECK(std::isnan(out[1]));
}

TEST_CASE("Streaming DiLoCo's fragments take transformer blocks strided", "[numerics][streaming]")
{
  // Four blocks; the embedding joins block 0, the final norm block 3. P = 2: blocks 0 and 2, 1 and 3.
  const TensorLayout layout = {{"tok_emb", 0, 4},   {"l0.wq", 4, 4},  {"l0.w1", 8, 4},  {"l1.wq", 12, 4},
                               {"l2.wq", 16, 4},   {"l3.wq", 20, 4}, {"lnf_g", 24, 4}};
  const auto two = streaming_fragments(layout, 2);
  REQUIRE(two.size() == 2);
  CHECK(two[0] == std::vector<std::size_t>{0, 1, 2, 4});
  CHECK(two[1] == std::vector<std::size_t>{3, 5, 6});
  // 0: the paper's 3 blocks a fragment -> ceil(4 / 3) = 2; more fragments than blocks -> one per block.
  CHECK(streaming_fragments(layout, 0).size() == 2);
  CHECK(streaming_fragments(layout, 9).size() == 4);
  // No blocks (the MLP's W1, b1, W2, b2): one fragment.
  const TensorLayout mlp = {{"W1", 0, 8, 4}, {"b1", 8, 2}, {"W2", 10, 4, 2}, {"b2", 14, 2}};
  CHECK(streaming_fragments(mlp, 0).size() == 1);
  CHECK(streaming_fragments(mlp, 3).size() == 1);
}

TEST_CASE("Streaming DiLoCo with one fragment, no overlap, no mixing and fp32 is DiLoCo bit for bit",
          "[numerics][streaming]")
{
  const TensorLayout layout = {{"l0.w", 0, 24}, {"l0.b", 24, 8}};
  const Hyper common        = {{"lr", 0.01}, {"weight_decay", 0.1}, {"inner_steps", 5}, {"outer_lr", 0.7}};
  Hyper streaming           = common;
  streaming["fragments"]     = 1;
  streaming["overlap_steps"] = 0;
  streaming["mixing"]        = 0;
  streaming["outer_bits"]    = 32;
  Diloco plain(3, common);
  StreamingDiloco stream(layout, 3, streaming);
  std::mt19937 rng(5);
  std::normal_distribution<float> normal;
  Vec start(32);
  for (auto& v : start)
    v = normal(rng);
  std::vector<Vec> a(3, start), b(3, start);
  for (int step = 1; step <= 17; ++step) {
    std::vector<Vec> g(3, Vec(32));
    for (auto& v : g)
      for (auto& x : v)
        x = normal(rng);
    CHECK(plain.phase() == (step % 5 == 0 ? "outer" : "inner"));
    CHECK(stream.phase() == (step % 5 == 0 ? "sync" : "inner"));
    plain.step(a, g);
    stream.step(b, g);
    for (std::size_t w = 0; w < 3; ++w)
      CHECK(a[w] == b[w]);
  }
  CHECK(plain.bytes_sent_per_worker() == stream.bytes_sent_per_worker());
}

TEST_CASE("Streaming DiLoCo sends fragment p after steps p·H/P + kH and applies it tau steps later",
          "[numerics][streaming]")
{
  // Two fragments, H = 4: fragment 0 sends after steps 4, 8; fragment 1 (offset 2) after 6, 10. With tau = 1 and
  // alpha = 0.5, after step 5 fragment 0 holds half the worker's own and half the new global value.
  const TensorLayout layout = {{"l0.w", 0, 2}, {"l1.w", 2, 2}};
  const Hyper h = {{"lr", 0.1},      {"inner_steps", 4}, {"fragments", 2}, {"overlap_steps", 1},
                   {"mixing", 0.5}, {"outer_bits", 32}, {"outer_lr", 1.0}, {"outer_momentum", 0.0}};
  StreamingDiloco s(layout, 1, h);
  std::vector<std::string> phases;
  std::vector<Vec> x = {Vec::Zero(4)};
  Vec before_apply, adamw = Vec::Zero(4); // AdamW alone on the same gradients: the worker's path until step 5
  AdamState state;
  for (int step = 1; step <= 10; ++step) {
    phases.push_back(s.phase());
    const Vec g = Vec::Constant(4, 1.0f);
    if (step == 5)
      before_apply = x[0];
    if (step <= 5)
      adam_update(adamw, g, state, 0.1, 0.9, 0.999, 1e-8, 0, true, AdamVariant::ADAMW);
    s.step(x, {g});
    if (step == 4) // sent, not applied: the global parameters are still the start
      CHECK(s.global_params() == Vec::Zero(4));
    if (step == 5) {
      // One worker, outer lr 1, momentum 0: the new global fragment 0 is θ - Δ = the worker's parameters at step 4;
      // the worker's fragment 0 after step 5 is the mean of its own and that.
      CHECK(s.global_params().head(2).isApprox(before_apply.head(2)));
      CHECK(s.global_params().tail(2) == Vec::Zero(2)); // fragment 1 not yet sent
      CHECK(x[0].head(2).isApprox(0.5f * adamw.head(2) + 0.5f * before_apply.head(2)));
      CHECK(x[0].tail(2) == adamw.tail(2));
    }
  }
  const std::vector<std::string> want = {"inner", "inner", "inner", "sync", "inner",
                                         "sync",  "inner", "sync",  "inner", "sync"};
  CHECK(phases == want);
  // Four sends of 2 fp32 values with one worker: no bytes leave it.
  CHECK(s.bytes_sent_per_worker() == 0);
}
