// Message counts from the same schedules the engine runs (schedule_collective), so the two cannot drift apart.
#include "sim/collective/MessageCount.hpp"

#include "sim/layout/OverlapSchedule.hpp"
#include "sim/layout/RankLayout.hpp"
#include "sim/platform/Topology.hpp"

#include <algorithm>

namespace ccsim::sim {

namespace {
std::uint64_t collective_messages(const CommOp& op, const RankLayout& layout, Fidelity fidelity, bool merge,
                                  const Topology& topo, std::uint64_t bytes)
{
  const auto rounds = schedule_collective(op.collective, op.algo, layout.groups(op.group), bytes, fidelity, topo,
                                          merge);
  std::uint64_t n = 0;
  for (const auto& round : rounds)
    n += round.flows.size();
  return n;
}

std::uint64_t collective_messages(const CommOp& op, const RankLayout& layout, Fidelity fidelity, bool merge,
                                  const Topology& topo)
{
  return collective_messages(op, layout, fidelity, merge, topo, op.bytes);
}

/// A collective hidden under compute is sent in buckets (sim/schedule/OverlappedComm.hpp).
std::uint64_t bucketed_messages(const CommOp& op, const StepShape& shape, const RankLayout& layout, Fidelity fidelity,
                                const Topology& topo)
{
  const auto b = split_buckets(op.bytes, hidden_bucket_bytes(op, shape));
  std::uint64_t n = 0;
  if (b.full > 0)
    n += b.full * collective_messages(op, layout, fidelity, shape.merge_node_pairs, topo, b.bucket_bytes);
  if (b.tail_bytes > 0)
    n += collective_messages(op, layout, fidelity, shape.merge_node_pairs, topo, b.tail_bytes);
  return n * hidden_runs_per_step(op, shape);
}

RankLayout layout_of(const StepShape& shape)
{
  return RankLayout{shape.dp, shape.tp, shape.pp, shape.gpus_per_node, shape.ep, shape.cp};
}
} // namespace

std::uint64_t planned_messages(const StepPlan& plan, const StepShape& shape, Fidelity fidelity, const Topology& topo)
{
  const RankLayout layout = layout_of(shape);
  std::uint64_t n         = 0;
  for (const auto& phase : plan.phases) {
    for (const auto& op : phase.ops)
      if (const auto* comm = std::get_if<CommOp>(&op)) {
        if (comm->ring) { // context parallelism's ring: its rounds, each a send/recv of one or two blocks
          n += (comm->ring->one_block_rounds() + comm->ring->two_block_rounds()) *
               collective_messages(*comm, layout, fidelity, shape.merge_node_pairs, topo, comm->ring->kv_block_bytes);
          continue;
        }
        n += hidden_under_compute(*comm, shape)
                 ? bucketed_messages(*comm, shape, layout, fidelity, topo)
                 : collective_messages(*comm, layout, fidelity, shape.merge_node_pairs, topo);
      }
    if (phase.pipeline) {
      const auto chains = static_cast<std::uint64_t>(layout.replicas()) * static_cast<std::uint64_t>(layout.tp);
      const auto m      = static_cast<std::uint64_t>(std::max(1, shape.grad_accumulation));
      n += chains * 2 * static_cast<std::uint64_t>(layout.pp - 1) * m;
    }
  }
  return n;
}

std::uint64_t planned_messages(const std::vector<std::vector<Op>>& calls, const StepShape& shape, Fidelity fidelity,
                               const Topology& topo)
{
  const RankLayout layout = layout_of(shape);
  std::uint64_t n         = 0;
  for (const auto& call : calls)
    for (const auto& op : call)
      if (const auto* comm = std::get_if<CommOp>(&op))
        n += collective_messages(*comm, layout, fidelity, shape.merge_node_pairs, topo);
  return n;
}

} // namespace ccsim::sim
