// Tensor-parallel collectives beside their GEMMs (Megatron-Core --tp-comm-overlap; sim/layout/GemmOverlap.hpp): each
// closed form against a timeline worked by hand, and an op's exposure summed over its collectives.
#include "sim/layout/GemmOverlap.hpp"

#include <catch2/catch.hpp>

#include <stdexcept>

using namespace ccsim;

TEST_CASE("GemmOverlap: a pipelined chunk hidden under its GEMM exposes only the last chunk's t_c / n", "[sim]")
{
  // n = 4 chunks, t_c = 4 ms, t_g = 8 ms: GEMM chunks of 2 ms end at 2, 4, 6, 8; each reduce-scatter chunk (1 ms)
  // follows its GEMM and is done before the next GEMM chunk ends, the last at 8 + 1 = 9: 1 ms exposed = t_c / n.
  CHECK(sim::pipelined_exposed_s(4e-3, 8e-3, 4) == Approx(1e-3).epsilon(1e-12));
  // Equal times: c = g, the stream keeps up exactly: still the last chunk only.
  CHECK(sim::pipelined_exposed_s(8e-3, 8e-3, 4) == Approx(2e-3).epsilon(1e-12));
}

TEST_CASE("GemmOverlap: a pipelined chunk longer than its GEMM exposes t_c / n + (n - 1) / n (t_c - t_g)", "[sim]")
{
  // n = 4, t_c = 12 ms, t_g = 8 ms: g = 2, c = 3. The first reduce-scatter chunk starts at 2 and the stream never
  // idles after it: it ends at 2 + 4 x 3 = 14, 6 ms after the GEMM's 8 = 12/4 + 3/4 x (12 - 8).
  CHECK(sim::pipelined_exposed_s(12e-3, 8e-3, 4) == Approx(6e-3).epsilon(1e-12));
  CHECK(sim::pipelined_exposed_s(12e-3, 8e-3, 4) == Approx(12e-3 / 4 + 3.0 / 4 * (12e-3 - 8e-3)).epsilon(1e-12));
  // One chunk: nothing to pipeline, the whole collective after the GEMM.
  CHECK(sim::pipelined_exposed_s(5e-3, 8e-3, 1) == Approx(5e-3).epsilon(1e-12));
}

TEST_CASE("GemmOverlap: a ring-exchange all-gather starts on the local chunk", "[sim]")
{
  // tp = n = 8, t_g = 16 ms (g = 2 ms per chunk). t_c = 7 ms: 7 steps of c = 1 ms, each chunk there before its GEMM
  // chunk starts: nothing exposed.
  CHECK(sim::ring_exchange_exposed_s(7e-3, 16e-3, 8) == 0);
  // t_c = 21 ms (c = 3 ms), t_g = 8 ms (g = 1 ms): GEMM chunk k waits for step k at 3k ms; the last (k = 7) runs
  // 21-22 ms: 22 - 8 = 14 ms exposed = t_c - (n - 1)/n t_g, the pipelined form's value where t_c >= t_g.
  CHECK(sim::ring_exchange_exposed_s(21e-3, 8e-3, 8) == Approx(14e-3).epsilon(1e-12));
  CHECK(sim::pipelined_exposed_s(21e-3, 8e-3, 8) == Approx(14e-3).epsilon(1e-12));
}

TEST_CASE("GemmOverlap: a bulk collective exposes what outlasts the whole GEMM", "[sim]")
{
  CHECK(sim::bulk_exposed_s(5e-3, 8e-3) == 0);
  CHECK(sim::bulk_exposed_s(10e-3, 8e-3) == Approx(2e-3).epsilon(1e-12));
  CHECK(sim::gemm_overlap_exposed_s(sim::GemmOverlapMethod::BULK, 10e-3, 8e-3, 4) == Approx(2e-3).epsilon(1e-12));
  CHECK(sim::gemm_overlap_exposed_s(sim::GemmOverlapMethod::PIPELINE, 12e-3, 8e-3, 4) == Approx(6e-3).epsilon(1e-12));
  CHECK(sim::gemm_overlap_exposed_s(sim::GemmOverlapMethod::RING_EXCHANGE, 7e-3, 16e-3, 8) == 0);
}

namespace {
/// Compute whose per-operator account holds one layer GEMM "qkv" of `gemm_s` seconds (forward) and "qkv.dgrad".
sim::ComputeTimes one_gemm(double gemm_s)
{
  sim::ModelCompute model;
  for (const auto& [name, pass] : {std::pair{"qkv", sim::Pass::FORWARD}, std::pair{"qkv.dgrad", sim::Pass::BACKWARD}}) {
    sim::PricedOp p;
    p.op.name         = name;
    p.op.pass         = pass;
    p.op.kind         = sim::OpKind::GEMM;
    p.cost.seconds    = gemm_s;
    model.layer.ops.push_back(p);
  }
  sim::ComputeTimes t;
  t.operators = model;
  return t;
}
} // namespace

TEST_CASE("GemmOverlap: an op's exposure is its unlisted rest plus what each listed collective leaves", "[sim]")
{
  // An op timed at 16 ms whole; two runs of a pipelined collective (4 chunks) each take a quarter of it, 4 ms, beside
  // an 8 ms GEMM: each hides 3 ms (exposes 1), so the op exposes 16 - 2 x 3 = 10 ms; the other half of the op (8 ms)
  // is exposed in full.
  sim::CommOp op{"tp", sim::Collective::ALL_REDUCE, sim::GroupKind::TENSOR_PARALLEL, 1000};
  op.beside_gemms = {{"qkv", sim::GemmOverlapMethod::PIPELINE, 4, 0.25, 2}};
  CHECK(sim::beside_gemms_exposed_s(one_gemm(8e-3), 1.0, op, 16e-3) == Approx(10e-3).epsilon(1e-12));
  // At a quarter of the compute time (a GEMM of 2 ms), each exposes 4/4 + 3/4 x (4 - 2) = 2.5 ms, hides 1.5.
  CHECK(sim::beside_gemms_exposed_s(one_gemm(8e-3), 0.25, op, 16e-3) == Approx(13e-3).epsilon(1e-12));
  // A backward GEMM by its name, in bulk: 4 ms beside 8 ms, all hidden: 16 - 2 x 4 = 8 ms.
  op.beside_gemms = {{"qkv.dgrad", sim::GemmOverlapMethod::BULK, 1, 0.25, 2}};
  CHECK(sim::beside_gemms_exposed_s(one_gemm(8e-3), 1.0, op, 16e-3) == Approx(8e-3).epsilon(1e-12));
  // No per-operator account, or no such GEMM: a programming error (the run's resolution refuses such runs first).
  CHECK_THROWS_AS(sim::beside_gemms_exposed_s(sim::ComputeTimes{}, 1.0, op, 16e-3), std::logic_error);
  op.beside_gemms = {{"fc1", sim::GemmOverlapMethod::BULK, 1, 0.25, 2}};
  CHECK_THROWS_AS(sim::beside_gemms_exposed_s(one_gemm(8e-3), 1.0, op, 16e-3), std::logic_error);
}
