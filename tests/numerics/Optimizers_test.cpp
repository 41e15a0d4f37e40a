// Optimizer steps against closed forms, and 1-bit Adam's reduction to Adam before its freeze.
#include "numerics/Optimizers.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <stdexcept>

using namespace ccsim::numerics;

TEST_CASE("adam_update: one step with bias correction moves each coordinate by lr·sign(g)", "[numerics]")
{
  // Step 1: m = 0.1 g, v = 0.001 g²; corrected m̂ = g, v̂ = g², update = g/(|g| + eps) ≈ sign(g).
  Vec x(3), g(3);
  x << 1, 2, 3;
  g << 0.5, -2, 0;
  AdamState s;
  adam_update(x, g, s, 0.1, 0.9, 0.999, 1e-8, 0, /*bias_correction=*/true);
  CHECK(x[0] == Approx(1 - 0.1 * 0.5 / (0.5 + 1e-8)));
  CHECK(x[1] == Approx(2 + 0.1 * 2 / (2 + 1e-8)));
  CHECK(x[2] == Approx(3));
  CHECK(s.m[1] == Approx(-0.2));
  CHECK(s.v[1] == Approx(0.004));
}

TEST_CASE("adam_update: without bias correction the first step is lr·0.1g/(sqrt(0.001)|g| + eps)", "[numerics]")
{
  Vec x(1), g(1);
  x << 0;
  g << 1;
  AdamState s;
  adam_update(x, g, s, 1.0, 0.9, 0.999, 0, 0, /*bias_correction=*/false);
  CHECK(x[0] == Approx(-0.1 / std::sqrt(0.001))); // -3.1623
}

TEST_CASE("adam_update: apex, torch and adamw take one step to their own closed forms", "[numerics]")
{
  // x = (1, -2), g = (0.2, -0.05), lr 0.1, b1 0.9, b2 0.999, eps 0.01 (large, so where it sits shows), wd 0.5, t = 1,
  // bias correction on. After one step m = 0.1·g', v = 0.001·g'² for the gradient g' each variant feeds the moments.
  //  apex:  s = lr·sqrt(1-b2)/(1-b1) = sqrt(0.001); x -= s·(0.1g/(sqrt(0.001)|g| + eps) + wd·x)
  //         x0 = 1 - sqrt(0.001)·(0.02/(0.2·sqrt(0.001) + 0.01) + 0.5)          = 0.945446023
  //         x1 = -2 - sqrt(0.001)·(-0.005/(0.05·sqrt(0.001) + 0.01) - 1)         = -1.954724517
  //  torch: g' = g + wd·x = (0.7, -1.05); m̂ = g', sqrt(v̂) = |g'|; x -= lr·g'/(|g'| + eps)
  //         x0 = 1 - 0.1·0.7/0.71 = 0.901408451,  x1 = -2 + 0.1·1.05/1.06 = -1.900943396
  //  adamw: x = x·(1 - lr·wd) = (0.95, -1.9), then x -= lr·g/(|g| + eps)
  //         x0 = 0.95 - 0.1·0.2/0.21 = 0.854761905,  x1 = -1.9 + 0.1·0.05/0.06 = -1.816666667
  // (python3: the three lines above evaluated in float64.) fp32 arithmetic: 1e-6 relative.
  struct Case {
    AdamVariant variant;
    double x0, x1;
  };
  for (const Case c : {Case{AdamVariant::APEX, 0.9454460230, -1.9547245174},
                       Case{AdamVariant::TORCH, 0.9014084507, -1.9009433962},
                       Case{AdamVariant::ADAMW, 0.8547619048, -1.8166666667}}) {
    Vec x(2), g(2);
    x << 1, -2;
    g << 0.2f, -0.05f;
    AdamState s;
    adam_update(x, g, s, 0.1, 0.9, 0.999, 0.01, 0.5, /*bias_correction=*/true, c.variant);
    INFO("variant " << adam_variant_names()[static_cast<std::size_t>(c.variant)]);
    CHECK(x[0] == Approx(c.x0).epsilon(1e-6));
    CHECK(x[1] == Approx(c.x1).epsilon(1e-6));
  }
}

TEST_CASE("lamb_update: the trust ratio ||x||/||u|| is clipped into (c_min / c_max) per tensor", "[numerics]")
{
  // Two tensors. After one step (no bias correction in LAMB's moments here) u = m/sqrt(v) = 0.1g/(sqrt(0.001)|g|)
  // = 3.1623·sign(g) elementwise (eps 0).
  Vec x(4), g(4);
  x << 3, 4, 0.01f, 0;  // tensor A: ||x|| = 5; tensor B: ||x|| = 0.01
  g << 1, 1, 1, -1;
  const TensorLayout layout = {{"A", 0, 2}, {"B", 2, 2}};
  AdamState s;
  lamb_update(x, g, s, layout, 0.1, 0.9, 0.999, 0, 0, 0.01, 0.3);
  const double u = 0.1 / std::sqrt(0.001);
  // A: ratio = 5 / (u·sqrt2) = 1.118 -> clipped to 0.3
  CHECK(x[0] == Approx(3 - 0.1 * 0.3 * u));
  // B: ratio = 0.01 / (u·sqrt2) = 0.00224 -> clipped up to 0.01
  CHECK(x[3] == Approx(0 + 0.1 * 0.01 * u));
}

TEST_CASE("OnebitAdam: with freeze_step beyond the run it is Adam without bias correction", "[numerics]")
{
  const std::size_t W = 4, n = 10;
  OnebitAdam onebit(n, W, {{"lr", 0.01}, {"freeze_step", 100}});
  std::vector<Vec> xs(W, Vec::LinSpaced(n, -1, 1));
  Vec ref = Vec::LinSpaced(n, -1, 1);
  AdamState rs;
  std::mt19937 rng(3);
  std::normal_distribution<float> d;
  for (int step = 0; step < 5; ++step) {
    std::vector<Vec> grads(W, Vec(n));
    for (auto& g : grads)
      for (long i = 0; i < g.size(); ++i)
        g[i] = d(rng);
    onebit.step(xs, grads);
    adam_update(ref, average(grads), rs, 0.01, 0.9, 0.999, 1e-8, 0, false);
  }
  for (std::size_t w = 0; w < W; ++w)
    for (std::size_t i = 0; i < n; ++i)
      CHECK(xs[w][i] == Approx(ref[i]).epsilon(1e-6));
  CHECK(onebit.phase() == "warmup");
  CHECK(onebit.bytes_sent_per_worker() == 5 * ring_allreduce_bytes(n, W));
}

TEST_CASE("OnebitAdam: after the freeze workers stay identical and send 1-bit bytes", "[numerics]")
{
  const std::size_t W = 2, n = 16;
  OnebitAdam opt(n, W, {{"lr", 0.01}, {"freeze_step", 2}});
  std::vector<Vec> xs(W, Vec::Ones(n));
  std::mt19937 rng(5);
  std::normal_distribution<float> d;
  for (int step = 0; step < 6; ++step) {
    std::vector<Vec> grads(W, Vec(n));
    for (auto& g : grads)
      for (long i = 0; i < g.size(); ++i)
        g[i] = d(rng);
    opt.step(xs, grads);
  }
  CHECK(opt.phase() == "compressed");
  CHECK((xs[0] - xs[1]).norm() == 0);
  // 2 warm-up steps of fp32 ring bytes + 4 compressed steps of OnebitLayout(16, 2) wire bytes
  CHECK(opt.bytes_sent_per_worker() == 2 * ring_allreduce_bytes(n, W) + 4 * OnebitLayout(n, W).wire_bytes_per_worker());
}

TEST_CASE("OnebitAdam: compression_unit=tensor compresses each tensor alone - the notes' two-worker vector per tensor",
          "[numerics]")
{
  // DeepSpeed's OnebitAdam runs one compressed_allreduce per parameter it is given (fp16/onebit/adam.py, step()). Two
  // tensors of 16: worker w's momentum at the first compressed step is [x_w, 100·x_w] (beta1 = 0 makes it the
  // gradient). Each tensor alone is the two-worker vector of docs/design/notes/reference-implementations.md §1.6, whose first call
  // gives server scales A, B; the compressed allreduce is positively homogeneous (RMS scales, signs), so the second
  // tensor gives 100·A, 100·B. With one buffer for the whole model the first tensor's coordinates get the large
  // tensor's scale instead.
  const std::vector<float> x0 = {0.5f, -0.25f, 0, 1, -1, 0.125f, 0.75f, -0.5f, 0.3f, -0.2f, 0.1f, -0.9f, 0.6f, 0, -0.05f, 0.4f};
  const std::vector<float> x1 = {-0.5f, 0.25f, 0.2f, 0.5f, -0.5f, -0.125f, 0.25f, 0.5f, -0.3f, -0.1f, 0.2f, 0.9f, -0.6f, 0.1f, 0.05f, -0.4f};
  const float A = 0.337181563f, B = 0.293782667f;
  const std::vector<float> result = {A, -A, A, A, -A, A, A, -A, B, -B, B, -B, B, B, -B, B};
  const TensorLayout layout = {{"a", 0, 16}, {"b", 16, 16}};
  auto first_compressed_momentum = [&](double unit) {
    OnebitAdam opt(layout, 2,
                   {{"lr", 0.1}, {"beta1", 0}, {"beta2", 0}, {"freeze_step", 1}, {"compression_unit", unit}});
    std::vector<Vec> xs(2, Vec::Zero(32));
    std::vector<Vec> warm(2, Vec::Ones(32)); // warm-up: v = 1 everywhere
    opt.step(xs, warm);
    std::vector<Vec> grads(2, Vec(32));
    for (long i = 0; i < 16; ++i) {
      grads[0][i] = x0[static_cast<std::size_t>(i)], grads[0][16 + i] = 100 * x0[static_cast<std::size_t>(i)];
      grads[1][i] = x1[static_cast<std::size_t>(i)], grads[1][16 + i] = 100 * x1[static_cast<std::size_t>(i)];
    }
    opt.step(xs, grads);
    CHECK(opt.phase() == "compressed");
    CHECK((xs[0] - xs[1]).norm() == 0);
    // x = -lr·1/(1 + eps) after the warm-up, then -lr·m/(1 + eps) with v frozen at 1.
    for (long i = 0; i < 32; ++i)
      CHECK(xs[0][i] == Approx(-0.1 - 0.1 * opt.state(0).m[i]).epsilon(1e-6));
    return opt.state(0).m;
  };
  const Vec per_tensor = first_compressed_momentum(1);
  for (long i = 0; i < 16; ++i) {
    CHECK(per_tensor[i] == Approx(result[static_cast<std::size_t>(i)]).epsilon(1e-6));
    CHECK(per_tensor[16 + i] == Approx(100 * result[static_cast<std::size_t>(i)]).epsilon(1e-6));
  }
  const Vec whole = first_compressed_momentum(0);
  CHECK(std::abs(whole[0]) > 10 * A); // the first tensor's coordinates take the whole buffer's chunk scale
  CHECK_THROWS_AS(OnebitAdam(layout, 2, {{"compression_unit", 2}}), std::invalid_argument);
}
