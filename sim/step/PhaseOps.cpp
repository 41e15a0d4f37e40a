// A phase's ops. A collective's rounds follow one another; a round that stands for several latency-bound steps
// (Round::extra_latency_terms) waits their latency after its flows, at the largest hop latency among them.
#include "sim/step/PhaseOps.hpp"

#include "sim/step/FlowRounds.hpp"
#include "sim/step/RingAttentionOps.hpp"
#include "sim/step/TraceRecording.hpp"

#include <algorithm>
#include <variant>

namespace sg4 = simgrid::s4u;

namespace ccsim::sim {

namespace {
double hop_latency(const StepContext& c, const Flow& f)
{
  const bool inter = c.platform.node_of(f.src) != c.platform.node_of(f.dst);
  return c.lat_factor * (inter ? c.topo->inter_node_latency_s() : c.topo->intra_node_latency_s());
}
} // namespace

double in_layer_bubble_share(const StepShape& s, GroupKind group)
{
  const bool in_layer = group == GroupKind::TENSOR_PARALLEL || group == GroupKind::EXPERT_PARALLEL ||
                        group == GroupKind::CONTEXT_PARALLEL;
  if (!in_layer || s.pp < 2)
    return 0;
  return static_cast<double>(s.pp - 1) /
         (static_cast<double>(std::max(1, s.vpp)) * static_cast<double>(std::max(1, s.grad_accumulation)));
}

double run_collective(StepContext& c, const CommOp& op)
{
  if (c.platform.out_of_slots)
    return 0; // the step runs again on every node (Platform::slots): no need to plan the rest of this attempt
  const double t0  = sg4::Engine::get_clock();
  const auto rounds = schedule_collective(op.collective, op.algo, c.layout.groups(op.group), op.bytes, c.fidelity,
                                          *c.topo, c.shape.merge_node_pairs);
  for (const auto& round : rounds) {
    double alpha = 0;
    for (const auto& f : round.flows)
      alpha = std::max(alpha, hop_latency(c, f));
    const double start = sg4::Engine::get_clock();
    run_round(c, round);
    // The protocol kernels' GPU-side ceiling (Round::floor_s): the round lasts at least its floor after its latency.
    if (const double ran = sg4::Engine::get_clock() - start; round.floor_s > 0 && ran < alpha + round.floor_s)
      sg4::this_actor::sleep_for(alpha + round.floor_s - ran);
    if (round.latency_s >= 0) // the model's latency, of which the flows paid alpha
      sg4::this_actor::sleep_for(std::max(0.0, round.latency_s - alpha));
    else if (round.extra_latency_terms > 0)
      sg4::this_actor::sleep_for(round.extra_latency_terms * alpha);
  }
  return sg4::Engine::get_clock() - t0;
}

double measure_collective(StepContext& c, CommOp op, std::uint64_t bytes, BucketTraffic& traffic)
{
  const std::uint64_t events0 = c.events;
  const double inter0 = c.inter_bytes, intra0 = c.intra_bytes;
  const std::vector<double> links0 = c.link_bytes;
  op.bytes        = bytes;
  const double t  = run_collective(c, op);
  traffic.events  = c.events - events0;
  traffic.inter_bytes = c.inter_bytes - inter0;
  traffic.intra_bytes = c.intra_bytes - intra0;
  traffic.link_bytes.assign(links0.size(), 0.0);
  for (std::size_t i = 0; i < links0.size(); ++i)
    traffic.link_bytes[i] = c.link_bytes[i] - links0[i];
  c.events = events0;
  c.inter_bytes = inter0;
  c.intra_bytes = intra0;
  c.link_bytes  = links0;
  return t;
}

void count_traffic(StepContext& c, const BucketTraffic& traffic, std::uint64_t count)
{
  if (count == 0)
    return;
  const std::uint64_t before = c.events;
  c.events += traffic.events * count;
  if (c.on_progress && before / kProgressEvery != c.events / kProgressEvery)
    c.on_progress(c.events);
  c.inter_bytes += traffic.inter_bytes * static_cast<double>(count);
  c.intra_bytes += traffic.intra_bytes * static_cast<double>(count);
  for (std::size_t i = 0; i < traffic.link_bytes.size() && i < c.link_bytes.size(); ++i)
    c.link_bytes[i] += traffic.link_bytes[i] * static_cast<double>(count);
}

double run_ops(StepContext& c, const std::vector<Op>& ops, PhaseReport& r)
{
  const double t0 = sg4::Engine::get_clock();
  for (const auto& op : ops) {
    const double op_start = sg4::Engine::get_clock();
    if (const auto* comm = std::get_if<CommOp>(&op)) {
      if (hidden_under_compute(*comm, c.shape))
        continue; // charged with the compute it hides under (sim/schedule/OverlappedComm.hpp)
      if (comm->ring) { // beside the attention it overlaps (sim/step/RingAttentionOps.hpp)
        run_ring_attention(c, *comm, r);
        record_op(c, comm->label, "collective", op_start);
        continue;
      }
      double t = run_collective(c, *comm);
      // The bubble's share of an in-layer collective: the fill and drain's micro-batches wait for it too.
      if (const double bubble = t * in_layer_bubble_share(c.shape, comm->group); bubble > 0) {
        sg4::this_actor::sleep_for(bubble);
        t += bubble;
      }
      record_op(c, comm->label, "collective", op_start);
      r.comm_s += t;
      if (comm->synchronisation)
        r.allreduce_s += t;
      r.exposed_comm_s += t; // nothing runs beside it: the GPU waits for all of it
    } else if (const auto* k = std::get_if<KernelOp>(&op)) {
      const double t = kernel_seconds(*c.topo, *k) * c.kernel_factor;
      sg4::this_actor::sleep_for(t);
      r.compression_s += t;
      if (k->synchronisation)
        r.allreduce_s += t;
      record_op(c, k->kernel, "kernel", op_start);
    } else if (const auto* o = std::get_if<OptimizerOp>(&op)) {
      const double t = optimizer_seconds(*c.topo, *c.workload, *o) * c.kernel_factor;
      sg4::this_actor::sleep_for(t);
      r.optimizer_s += t;
      record_op(c, "optimizer " + o->optimizer, "optimizer", op_start);
    }
  }
  return sg4::Engine::get_clock() - t0;
}

} // namespace ccsim::sim
