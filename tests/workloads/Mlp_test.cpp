// The MLP proxy's hand-written gradient against central finite differences.
#include "workloads/proxy/Mlp.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace ccsim::workloads;

TEST_CASE("Mlp: the analytic gradient matches central finite differences", "[workloads]")
{
  const Mlp model(6, 5, 3, 2);
  Vec p = model.initial_params(4);
  Mat x;
  std::vector<int> y;
  model.sample(16, 0, 0, x, y);
  Vec g;
  model.loss(p, x, y, &g);
  // Check every tensor (W1, b1, W2, b2), a few coordinates each; h = 1e-2 in fp32, tolerance 2%.
  for (const auto& t : model.layout()) {
    for (std::size_t k = 0; k < std::min<std::size_t>(t.size, 4); ++k) {
      const long i  = static_cast<long>(t.offset + k);
      const float h = 1e-2f;
      Vec plus = p, minus = p;
      plus[i] += h;
      minus[i] -= h;
      const double numeric = (model.loss(plus, x, y, nullptr) - model.loss(minus, x, y, nullptr)) / (2 * h);
      INFO(t.name << "[" << k << "]");
      CHECK(g[i] == Approx(numeric).margin(2e-3).epsilon(0.02));
    }
  }
}

TEST_CASE("Mlp: the initial loss is about ln(classes) and the teacher's labels are learnable", "[workloads]")
{
  const Mlp model;
  Vec p = model.initial_params(1);
  CHECK(model.eval_loss(p) == Approx(std::log(10.0)).margin(0.6));
  // 200 plain gradient steps on one stream must cut the held-out loss by a third.
  for (int step = 0; step < 200; ++step) {
    Mat x;
    std::vector<int> y;
    model.sample(64, 0, static_cast<std::uint64_t>(step), x, y);
    Vec g;
    model.loss(p, x, y, &g);
    p -= 0.5f * g;
  }
  CHECK(model.eval_loss(p) < 2.0 / 3.0 * std::log(10.0));
}
