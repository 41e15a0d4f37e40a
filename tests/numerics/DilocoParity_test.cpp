// numerics::Diloco against DiLoCo's loop in torch (scripts/reference/diloco-torch.py: torch.optim.AdamW inside,
// torch.optim.SGD with Nesterov momentum outside, prime's pseudo-gradient), three workers, H = 4, fourteen steps:
// the global parameters after each of the three outer steps, and every worker's after two more inner steps.
#include "numerics/Diloco.hpp"
#include "numerics/Optimizers.hpp"
#include "tests/support/ReferenceVectors.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

using namespace ccsim::numerics;
using ccsim::test::reference_grad;
using ccsim::test::worst_gap;

TEST_CASE("DiLoCo matches torch AdamW inside and Nesterov SGD outside step by step", "[numerics][diloco]")
{
  const auto ref     = ccsim::test::reference_fixture("diloco-torch.json");
  const auto workers = ref.at("workers").get<std::size_t>();
  const auto size    = ref.at("size").get<long>();
  const Hyper h      = {{"lr", ref["inner"]["lr"]},
                        {"beta1", ref["inner"]["beta1"]},
                        {"beta2", ref["inner"]["beta2"]},
                        {"eps", ref["inner"]["eps"]},
                        {"weight_decay", ref["inner"]["weight_decay"]},
                        {"inner_steps", ref["inner_steps"]},
                        {"outer_lr", ref["outer"]["lr"]},
                        {"outer_momentum", ref["outer"]["momentum"]}};
  Diloco diloco(workers, h);
  Vec start(size);
  for (long i = 0; i < size; ++i)
    start[i] = reference_grad(99, 0, 0, static_cast<std::uint64_t>(i));
  std::vector<Vec> params(workers, start);
  std::size_t outer = 0;
  double worst      = 0;
  for (int step = 1; step <= ref.at("steps").get<int>(); ++step) {
    std::vector<Vec> grads(workers, Vec(size));
    for (std::size_t w = 0; w < workers; ++w)
      for (long i = 0; i < size; ++i)
        grads[w][i] = reference_grad(w, static_cast<std::uint64_t>(step), 0, static_cast<std::uint64_t>(i));
    const bool ends_outer = diloco.phase() == "outer";
    CHECK(ends_outer == (step % ref.at("inner_steps").get<int>() == 0));
    diloco.step(params, grads);
    if (ends_outer) {
      worst = std::max(worst, worst_gap(diloco.global_params(),
                                        ref.at("global_after_outer").at(outer++).get<std::vector<float>>()));
      for (const auto& p : params) // every worker restarts from the global parameters
        CHECK(p == diloco.global_params());
    }
  }
  REQUIRE(outer == ref.at("global_after_outer").size());
  for (std::size_t w = 0; w < workers; ++w)
    worst = std::max(worst, worst_gap(params[w], ref.at("worker_params_at_end").at(w).get<std::vector<float>>()));
  // fp32 rounding only (AdamW's bias corrections in double here, in Python floats in torch): measured worst 8.8e-6
  // relative (1e-3 floor); a wrong formula (no Nesterov term, the mean instead of θ - mean) is off by 1e-2 or more.
  CHECK(worst < 5e-5);
  // One fp32 ring all-reduce of the 64 values per outer step: 3 x 2(W-1)/W x 4 x 64.
  CHECK(diloco.bytes_sent_per_worker() == 3u * (2u * 2u * 4u * 64u / 3u));
}

TEST_CASE("DiLoCo with one worker and H = 1 is AdamW followed by an outer step on its own update",
          "[numerics][diloco]")
{
  // One worker, H = 1: Δ is the inner update u = θ - θ'; outer lr 1 and momentum 0 give θ - Δ = θ': plain AdamW.
  const Hyper h = {{"lr", 0.1}, {"inner_steps", 1}, {"outer_lr", 1.0}, {"outer_momentum", 0.0}};
  Diloco diloco(1, h);
  std::vector<Vec> p = {Vec::Constant(4, 1.0f)};
  Vec reference      = p[0];
  AdamState s;
  for (int step = 0; step < 3; ++step) {
    const Vec g = Vec::LinSpaced(4, -1.0f, 2.0f) * static_cast<float>(step + 1);
    diloco.step(p, {g});
    adam_update(reference, g, s, 0.1, 0.9, 0.999, 1e-8, 0, true, AdamVariant::ADAMW);
    CHECK((p[0] - reference).cwiseAbs().maxCoeff() < 1e-6f);
  }
}
