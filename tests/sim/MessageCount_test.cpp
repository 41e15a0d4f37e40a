// The progress line's denominator: planned_messages() counts, before a simulation, exactly the messages the step
// engine then reports in StepReport::events, and the engine's progress callback climbs to that count.
#include "sim/collective/MessageCount.hpp"
#include "tests/sim/SimTestSupport.hpp"

using namespace ccsim;
using namespace ccsim::test;

namespace {
/// A data-parallel phase (one all-reduce that may overlap the backward pass, an all-to-all, an all-gather), on 16
/// nodes x 8 GPUs.
sim::StepPlan mixed_plan()
{
  sim::CommOp overlapped{"ar", sim::Collective::ALL_REDUCE, sim::GroupKind::DATA_PARALLEL, 1 << 20};
  overlapped.overlap_backward = true;
  const sim::CommOp a2a{"a2a", sim::Collective::ALL_TO_ALL, sim::GroupKind::DATA_PARALLEL, 1 << 20};
  const sim::CommOp ag{"ag", sim::Collective::ALL_GATHER, sim::GroupKind::DATA_PARALLEL, 1 << 20};
  return sim::StepPlan{{sim::PhasePlan{"dp", 0.5, {overlapped, a2a, ag}, std::nullopt}}};
}
} // namespace

TEST_CASE("MessageCount: the planned count is the engine's event count and its closed form", "[sim]")
{
  const auto topo = rdma_cluster(8, 16, 100, 5);
  auto s          = dp_shape(128, 8);
  const auto plan = mixed_plan();
  SECTION("the all-reduce after the backward pass") {}
  SECTION("the all-reduce in 3 buckets under it: three of a third's size (1 MiB = 3 x 349,525 + 1 byte)")
  {
    s.overlap.grad_reduction = sim::GradReduction::BUCKETED;
    s.overlap.bucket_bytes   = 349525;
  }
  const bool bucketed = s.overlap.grad_reduction == sim::GradReduction::BUCKETED;
  for (const auto fidelity : {sim::Fidelity::EXACT, sim::Fidelity::FAST}) {
    const auto out = in_child([&] {
      std::vector<double> progress;
      sim::StepOptions options;
      options.on_progress = [&](std::uint64_t done) { progress.push_back(static_cast<double>(done)); };
      const auto r = sim::simulate_step(topo, no_compute(), plan, s, fidelity, options);
      bool rising  = true;
      for (std::size_t i = 1; i < progress.size(); ++i)
        rising = rising && progress[i] > progress[i - 1];
      return std::vector<double>{static_cast<double>(r.events), progress.empty() ? -1.0 : progress.back(),
                                 rising ? 1.0 : 0.0, static_cast<double>(progress.size())};
    });
    const auto planned = sim::planned_messages(plan, s, fidelity, topo);
    CHECK(out[0] == static_cast<double>(planned));
    if (fidelity == sim::Fidelity::EXACT) {
      // Hierarchical all-reduce over 16 nodes x 8: intra-node reduce-scatter and all-gather, 7 rounds each on 16
      // rings of 8 (128 flows a round), plus 8 inter-node rings of 16 doing 2 x 15 rounds: 128 x (7 + 30 + 7).
      // All-to-all: 128 x 127. All-gather ring of 128: 127 rounds of 128 flows.
      CHECK(planned == (bucketed ? 4u : 1u) * 128u * 44 + 128u * 127 + 127u * 128);
      // The callback climbs with the count, every kProgressEvery messages, to within one batch of the end.
      CHECK(out[2] == 1.0);
      CHECK(out[1] <= out[0]);
      CHECK(out[1] > out[0] - static_cast<double>(sim::kProgressEvery));
    }
  }
}

TEST_CASE("MessageCount: a pipelined phase counts one message per micro-batch per cut per direction per chain", "[sim]")
{
  // pp = 4 stages x dp 2 chains, m = 3 micro-batches: 2 chains x 3 cuts x 2 directions x 3 = 36 messages, and the
  // all-reduce after the flush: 4 stages' groups of 2 ranks, a ring of 2 rounds (reduce-scatter, all-gather) of
  // 2 messages each: 16.
  const auto topo = rdma_cluster(1, 8, 100, 5);
  sim::Workload w = no_compute();
  w.compute.push_back({"TEST", 1, 1, 1, 4, 0.001, 0.002, "", "test"});
  sim::StepShape s;
  s.gpus = 8, s.pp = 4, s.dp = 2, s.tp = 1, s.gpus_per_node = 1, s.micro_batch = 1, s.global_batch = 6;
  s.grad_accumulation = 3, s.seq_len = 1;
  sim::CommOp flagged{"ar", sim::Collective::ALL_REDUCE, sim::GroupKind::DATA_PARALLEL, 1 << 20};
  flagged.overlap_backward = true;
  const sim::StepPlan plan{{sim::PhasePlan{"pipe", 1.0, {flagged}, sim::PipelineComm{1000, 1000, {}}}}};
  const auto out = in_child([&] {
    const auto r = sim::simulate_step(topo, w, plan, s, sim::Fidelity::EXACT, false);
    return std::vector<double>{static_cast<double>(r.events)};
  });
  CHECK(sim::planned_messages(plan, s, sim::Fidelity::EXACT, topo) == 36u + 16u);
  CHECK(out[0] == 36.0 + 16.0);
}
