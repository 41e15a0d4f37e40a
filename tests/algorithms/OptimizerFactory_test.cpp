// The optimizer factory: names from the update registry, hyper-parameters checked before the first step, and the
// hyper-parameters passed through to the optimizer it builds.
#include "algorithms/OptimizerFactory.hpp"

#include "algorithms/Registry.hpp"

#include <catch2/catch.hpp>

#include <stdexcept>
#include <vector>

using namespace ccsim;
using numerics::Hyper;
using numerics::Vec;

TEST_CASE("make_distributed_optimizer: adam_variant selects the formula of Adam's update", "[algorithms]")
{
  // One step of 2 workers with equal gradients, so the average is g. x = (1, -2), g = (0.2, -0.05), lr 0.1, eps 0.01,
  // wd 0.5, bias correction on (the default). adam_variant 1 = torch: g' = g + wd·x = (0.7, -1.05); after one step
  // m̂ = g' and sqrt(v̂) = |g'|, so x0 -= lr·g'/(|g'| + eps): 1 - 0.1·0.7/0.71 = 0.901408451. An index past adamw
  // is rejected.
  const Hyper h = {{"lr", 0.1}, {"eps", 0.01}, {"weight_decay", 0.5}, {"adam_variant", 1}};
  auto opt      = algorithms::make_distributed_optimizer("adam", {{"x", 0, 2}}, 2, h);
  Vec x0(2), g0(2);
  x0 << 1, -2;
  g0 << 0.2f, -0.05f;
  std::vector<Vec> x(2, x0);
  opt->step(x, {g0, g0});
  CHECK(x[1][0] == Approx(0.9014084507).epsilon(1e-6));
  Hyper bad = h;
  bad["adam_variant"] = 3;
  CHECK_THROWS_AS(algorithms::make_distributed_optimizer("adam", {{"x", 0, 2}}, 2, bad), std::invalid_argument);
}

TEST_CASE("make_distributed_optimizer: unknown names and keys are rejected", "[algorithms]")
{
  CHECK_THROWS_AS(algorithms::make_distributed_optimizer("adamax", {{"all", 0, 4}}, 2, {}), std::invalid_argument);
  CHECK_THROWS_AS(algorithms::make_distributed_optimizer("adam", {{"all", 0, 4}}, 2, {{"lrr", 1}}),
                  std::invalid_argument);
}

TEST_CASE("make_distributed_optimizer: every optimizer the update registry lists can be built", "[algorithms]")
{
  // The registry takes these names from the factory's own table, so each must build and take a step.
  const auto infos = algorithms::optimizer_algorithm_infos();
  REQUIRE(infos.size() == 14);
  const auto updates = algorithms::update_algorithm_infos();
  for (std::size_t i = 0; i < infos.size(); ++i) {
    INFO(infos[i].name);
    CHECK(updates.at(i).name == infos[i].name);
    CHECK(infos[i].trains);
    // freeze_step 1, inner_steps 1 and overlap_steps 0: the 1-bit methods compress and both DiLoCos communicate
    // within the one step.
    auto opt = algorithms::make_distributed_optimizer(infos[i].name, {{"all", 0, 64}}, 2,
                                                      {{"freeze_step", 1}, {"inner_steps", 1}, {"overlap_steps", 0}});
    std::vector<Vec> x(2, Vec::Ones(64));
    opt->step(x, {Vec::Constant(64, 0.5f), Vec::Constant(64, -0.25f)});
    CHECK(opt->bytes_sent_per_worker() > 0);
  }
}
