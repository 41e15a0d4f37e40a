// DeepSpeed's momentum mask (exp_avg_mask) with `momentum_mask=auto`: coordinates whose every warm-up gradient was 0
// keep momentum 0 and never move; at the first compressed step every other coordinate moves exactly as without the
// mask, because the mask is applied after the compressed all-reduce (adam.py l.217–227).
#include "numerics/MomentumMask.hpp"

#include "numerics/LayerwiseOptimizers.hpp"
#include "numerics/Optimizers.hpp"

#include <catch2/catch.hpp>

#include <memory>
#include <random>
#include <string>

using namespace ccsim::numerics;

namespace {
/// One tensor of 32: the first 16 coordinates get random gradients, the last 16 always 0 (the embedding rows of
/// characters that never occur). A whole dead tensor would not show it for 1-bit LAMB: its LAMB coefficient stays 0.
/// Runs `steps` steps of `name` (onebit-adam or onebit-lamb) on 2 workers and returns worker 0's parameters.
Vec run(const std::string& name, double mask, int steps)
{
  const TensorLayout layout = {{"embedding", 0, 32}};
  const Hyper h = {{"lr", 0.01}, {"freeze_step", 2}, {"momentum_mask", mask}};
  std::unique_ptr<DistributedOptimizer> opt;
  if (name == "onebit-adam")
    opt = std::make_unique<OnebitAdam>(32, 2, h);
  else
    opt = std::make_unique<OnebitLamb>(layout, 32, 2, h, /*adapt_ratio=*/true);
  Vec x0        = Vec::Constant(32, 0.5f);
  std::vector<Vec> x(2, x0);
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0, 1);
  for (int s = 0; s < steps; ++s) {
    std::vector<Vec> g(2, Vec::Zero(32));
    for (auto& gw : g)
      for (int i = 0; i < 16; ++i)
        gw[i] = normal(rng);
    opt->step(x, g);
  }
  return x[0];
}
} // namespace

TEST_CASE("MomentumMask: the mask is 1 where the frozen variance is positive and 0 where it is exactly 0", "[numerics]")
{
  Vec v(4);
  v << 0.0f, 1e-30f, 2.0f, 0.0f;
  const Vec m = momentum_mask_from_variance(v);
  CHECK(m[0] == 0.0f);
  CHECK(m[1] == 1.0f);
  CHECK(m[2] == 1.0f);
  CHECK(m[3] == 0.0f);
  CHECK(momentum_mask_of({}) == MomentumMask::NONE);
  CHECK(momentum_mask_of({{"momentum_mask", 1}}) == MomentumMask::AUTO);
  CHECK_THROWS_AS(momentum_mask_of({{"momentum_mask", 2}}), std::invalid_argument);
}

TEST_CASE("MomentumMask: with auto the never-updated coordinates stay put - at the first compressed step the others move as without it",
          "[numerics]")
{
  for (const char* name : {"onebit-adam", "onebit-lamb"}) {
    INFO(name);
    // 2 warm-up steps, then 4 compressed ones: the masked dead tensor never moves, the unmasked one does.
    const Vec plain  = run(name, 0, 6);
    const Vec masked = run(name, 1, 6);
    for (int i = 16; i < 32; ++i) {
      CHECK(masked[i] == 0.5f); // exactly: its momentum is 0 after every compressed step
      CHECK(plain[i] != 0.5f);  // unmasked, 1-bit compression gives it +-scale, divided by sqrt(0) + eps
    }
    // At the first compressed step the all-reduce sends the same bits with or without the mask (it is applied
    // after), so the live tensor moves identically. Later the dead momentum differs (0 against +-scale), and with it
    // each chunk's scale: from then on the live tensor's path differs too, as it does in DeepSpeed.
    const Vec plain1  = run(name, 0, 3);
    const Vec masked1 = run(name, 1, 3);
    for (int i = 0; i < 16; ++i)
      CHECK(masked1[i] == plain1[i]);
  }
}
