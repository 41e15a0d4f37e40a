// Hidden collectives (sim/schedule/OverlappedComm.hpp): measured once per bucket size before the first phase, then charged
// per phase from their bucket schedule.
#include "sim/schedule/OverlappedComm.hpp"

#include "sim/layout/GemmOverlap.hpp"
#include "sim/step/PhaseOps.hpp"
#include "sim/step/TraceRecording.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <variant>

namespace sg4 = simgrid::s4u;

namespace ccsim::sim {


void measure_hidden_ops(StepContext& c)
{
  c.hidden.assign(c.plan->phases.size(), {});
  const auto progress = std::move(c.on_progress); // the measurement's messages are not the step's
  c.on_progress       = nullptr;
  for (std::size_t p = 0; p < c.plan->phases.size(); ++p) {
    const auto& ops = c.plan->phases[p].ops;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const auto* comm = std::get_if<CommOp>(&ops[i]);
      if (comm == nullptr || !hidden_under_compute(*comm, c.shape))
        continue;
      HiddenOp h;
      h.op_index       = i;
      h.timing.buckets = split_buckets(comm->bytes, hidden_bucket_bytes(*comm, c.shape));
      if (h.timing.buckets.full > 0)
        h.timing.full_s = measure_collective(c, *comm, h.timing.buckets.bucket_bytes, h.full);
      if (h.timing.buckets.tail_bytes > 0)
        h.timing.tail_s = measure_collective(c, *comm, h.timing.buckets.tail_bytes, h.tail);
      c.hidden[p].push_back(std::move(h));
    }
  }
  c.on_progress   = progress;
  c.last_sample_s = sg4::Engine::get_clock(); // the measurement is no part of any phase's link intervals
}

HiddenExposure charge_hidden_ops(StepContext& c, int phase_index, double forward_s, double backward_s, PhaseReport& r)
{
  HiddenExposure out;
  if (c.hidden.empty() || c.hidden[static_cast<std::size_t>(phase_index)].empty())
    return out;
  const auto& ops = c.plan->phases[static_cast<std::size_t>(phase_index)].ops;
  std::vector<BucketedOp> reductions, gathers;
  // ZeRO-3's per-layer collectives: seconds per layer of each pass, summed over the ops of that pass.
  double forward_gather_s = 0, backward_gather_s = 0, backward_reduce_s = 0;
  bool layered = false;
  for (const auto& h : c.hidden[static_cast<std::size_t>(phase_index)]) {
    const auto& comm  = std::get<CommOp>(ops[h.op_index]);
    const auto runs   = hidden_runs_per_step(comm, c.shape);
    const double t    = h.timing.total_s() * static_cast<double>(runs);
    count_traffic(c, h.full, h.timing.buckets.full * runs);
    count_traffic(c, h.tail, h.timing.buckets.tail_bytes > 0 ? runs : 0);
    r.comm_s += t;
    if (comm.synchronisation)
      r.allreduce_s += t;
    if (!comm.beside_gemms.empty()) { // timed whole, shared out over its layers' collectives (GemmOverlap.hpp)
      const double scale = c.nominal.forward_s > 0 ? c.compute.forward_s / c.nominal.forward_s : 1;
      // What the GEMMs leave exposed lengthens every micro-batch's passes, the pipeline's fill and drain included;
      // their collectives are on the critical path as run_ops counts them (comm includes the bubble's share).
      const double bubble = in_layer_bubble_share(c.shape, comm.group);
      r.comm_s += t * bubble;
      out.beside_gemms_s += beside_gemms_exposed_s(c.compute, scale, comm, t) * (1 + bubble);
      continue;
    }
    if (comm.overlap_steps > 0) { // beside the next overlap_steps steps' micro-batches: only what outlasts them
      // A flagged exchange starts layer by layer in its own step's last backward pass with bucketed overlap, so that
      // pass hides it too.
      const bool in_backward = comm.overlap_backward && c.shape.overlap.grad_reduction == GradReduction::BUCKETED;
      const double window    = comm.overlap_steps * std::max(1, c.shape.grad_accumulation) * (forward_s + backward_s) +
                            (in_backward ? backward_s : 0.0);
      out.after_backward_s += std::max(0.0, t - window);
      continue;
    }
    if (comm.per_layer != LayerPass::NONE) {
      layered              = true;
      const double layer_s = h.timing.total_s() / static_cast<double>(std::max<std::uint64_t>(1, h.timing.buckets.count()));
      if (comm.per_layer == LayerPass::FORWARD)
        forward_gather_s += layer_s;
      else if (comm.collective == Collective::ALL_GATHER)
        backward_gather_s += layer_s;
      else
        backward_reduce_s += layer_s;
      continue;
    }
    const bool reduction = comm.overlap_backward && c.shape.overlap.grad_reduction == GradReduction::BUCKETED;
    (reduction ? reductions : gathers).push_back(h.timing);
    if (reduction)
      reductions.back().produced_by = comm.backward_ready;
  }
  if (!reductions.empty())
    out.after_backward_s = reduction_finish_s(backward_s, reductions) - backward_s;
  if (!gathers.empty())
    out.before_forward_s = prefetch_finish_s(forward_s, gathers) - forward_s;
  if (layered) { // every micro-batch's forward and backward pass waits alike (ZeRO-3 has no gradient accumulation
                 // without its per-micro-batch reductions: Rajbhandari et al. 2020 §5.3)
    const int layers  = std::max(1, c.shape.layers / std::max(1, c.shape.pp));
    const double m    = std::max(1, c.shape.grad_accumulation);
    out.before_forward_s += m * (layered_pass_s(forward_s, layers, forward_gather_s, 0) - forward_s);
    out.after_backward_s +=
        m * (layered_pass_s(backward_s, layers, backward_gather_s, backward_reduce_s) - backward_s);
  }
  return out;
}

void record_hidden_spans(StepContext& c, int phase_index, double forward_start_s, double backward_start_s)
{
  if (!c.record_spans || c.hidden.empty())
    return;
  const auto& ops = c.plan->phases[static_cast<std::size_t>(phase_index)].ops;
  for (const auto& h : c.hidden[static_cast<std::size_t>(phase_index)]) {
    const auto& comm     = std::get<CommOp>(ops[h.op_index]);
    const bool reduction = (comm.overlap_backward && c.shape.overlap.grad_reduction == GradReduction::BUCKETED) ||
                           comm.per_layer == LayerPass::BACKWARD;
    const double start   = reduction ? backward_start_s : forward_start_s;
    const std::string under = comm.overlap_steps > 0              ? fmt::format("beside the next {} steps", comm.overlap_steps)
                              : !comm.beside_gemms.empty()         ? "beside the GEMMs of every pass"
                              : comm.per_layer != LayerPass::NONE ? (reduction ? "under every backward" : "under every forward")
                              : reduction                       ? "under the last backward"
                                                                : "under the first forward";
    span_all(c, fmt::format("{} ({} buckets, {})", comm.label, h.timing.buckets.count(), under), "collective (hidden)",
             start, start + h.timing.total_s(), /*lane=*/1);
  }
}

} // namespace ccsim::sim
