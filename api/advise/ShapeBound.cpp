// Triage of `advise --search` candidates before simulation; see ShapeBound.hpp for the bound's derivation.
#include "api/advise/ShapeBound.hpp"

#include "sim/collective/Collectives.hpp"
#include "sim/compute/CostModel.hpp"
#include "sim/layout/PipelineGroups.hpp"
#include "sim/layout/RankLayout.hpp"
#include "io/JsonInput.hpp"

#include <algorithm>
#include <variant>

namespace ccsim::api {

namespace {
/// Seconds the busiest NIC of the cluster needs, at its full rate, for the inter-node bytes of `phase`: its collectives
/// as the engine schedules them (in a pipelined phase only those it runs there, sim/collective/MessageCount.hpp) and its
/// pipeline's per-micro-batch sends. Every byte that leaves (enters) a node crosses that node's uplink one way, so no
/// schedule and no overlap with compute can carry them faster.
double nic_lower_bound_s(const ResolvedRun& run, const sim::PhasePlan& phase)
{
  const auto& s  = run.shape;
  const auto& t  = run.topo;
  const int gpn  = t.gpus_per_node;
  const int nodes = (s.gpus + gpn - 1) / gpn;
  std::vector<double> out(static_cast<std::size_t>(nodes), 0), in(out);
  auto add = [&](int src, int dst, double bytes) {
    if (src / gpn != dst / gpn) {
      out[static_cast<std::size_t>(src / gpn)] += bytes;
      in[static_cast<std::size_t>(dst / gpn)] += bytes;
    }
  };
  const sim::RankLayout layout{s.dp, s.tp, s.pp, gpn, s.ep, s.cp};
  for (const auto& op : phase.ops) {
    const auto* comm = std::get_if<sim::CommOp>(&op);
    if (comm == nullptr || (phase.pipeline && comm->overlap_backward))
      continue;
    for (const auto& round : sim::schedule_collective(comm->collective, comm->algo, layout.groups(comm->group),
                                                      comm->bytes, run.fidelity, gpn, s.merge_node_pairs))
      for (const auto& f : round.flows)
        add(f.src, f.dst, static_cast<double>(f.bytes));
  }
  if (phase.pipeline && s.pp > 1) {
    // Interleaved 1F1B sends each micro-batch across each boundary once per model chunk (sim/model/CommPlan.hpp).
    const double m = static_cast<double>(std::max(1, s.grad_accumulation)) * std::max(1, s.vpp);
    for (const auto& chain : sim::pipeline_chains(layout))
      for (std::size_t k = 0; k + 1 < chain.size(); ++k) {
        add(chain[k], chain[k + 1], m * static_cast<double>(phase.pipeline->forward_bytes_per_micro_batch));
        add(chain[k + 1], chain[k], m * static_cast<double>(phase.pipeline->backward_bytes_per_micro_batch));
      }
  }
  double worst = 0;
  for (int n = 0; n < nodes; ++n) {
    const auto own    = t.nodes.find(n);
    const double rate = own != t.nodes.end() && own->second.nic_bytes_per_s
                            ? *own->second.nic_bytes_per_s * t.nic_count
                            : t.node_uplink_bytes_per_s();
    if (rate > 0)
      worst = std::max(worst, std::max(out[static_cast<std::size_t>(n)], in[static_cast<std::size_t>(n)]) / rate);
  }
  return worst;
}
} // namespace

double compute_lower_bound_s(const ResolvedRun& run)
{
  // Stragglers give each stage a speed of its own (sim/schedule/PipelineSchedule.cpp): no bound is claimed for them.
  if (run.stragglers.active() || run.plan.phases.empty())
    return 0;
  const auto& s         = run.shape;
  const auto t          = sim::compute_times(run.topo, run.work, s);
  const double per_mb   = (t.forward_s + t.backward_s) * std::min(1.0, run.straggling.compute_factor);
  const double m        = std::max(1, s.grad_accumulation);
  const bool pipelined  = std::all_of(run.plan.phases.begin(), run.plan.phases.end(),
                                      [](const sim::PhasePlan& p) { return p.pipeline.has_value(); });
  // Interleaved 1F1B (vpp chunks per stage) cuts the bubble to (pp - 1) / vpp micro-batches of work (Narayanan et al.
  // 2021 §2.2.2; sim/schedule/PipelineSchedule.hpp simulates exactly that makespan without communication).
  const double bubble = pipelined && s.pp > 1 ? static_cast<double>(s.pp - 1) / std::max(1, s.vpp) : 0.0;
  return (m + bubble) * per_mb;
}

double step_lower_bound_s(const ResolvedRun& run)
{
  const double compute = compute_lower_bound_s(run);
  if (compute <= 0)
    return 0;
  // Each phase takes at least its compute and at least its busiest NIC's bytes; the step is the phases' mean
  // weighted by their shares of steps (api/run/Simulation.cpp).
  double total = 0, bound = 0;
  for (const auto& p : run.plan.phases)
    total += p.fraction;
  for (const auto& p : run.plan.phases)
    bound += (total > 0 ? p.fraction / total : 0) * std::max(compute, nic_lower_bound_s(run, p));
  return bound;
}

ShapeTriage triage_shape(const SimulateRequest& request, InputCache& cache)
{
  ShapeTriage out;
  try {
    const ResolvedRun run = resolve_run(request, &cache);
    out.bound_s   = step_lower_bound_s(run);
    out.samples   = static_cast<double>(run.shape.global_batch);
    out.recompute = run.recompute;
    return out;
  } catch (const io::InputError& e) {
    out.why = e.problem();
  }
  // Why it cannot run: the memory model (it would fit if out-of-memory runs were allowed) or another check.
  SimulateRequest oom = request;
  oom.allow_oom       = true;
  try {
    const ResolvedRun run = resolve_run(oom, &cache);
    out.kind              = run.memory_fit.verdict == MemoryVerdict::DOES_NOT_FIT ? ShapeTriage::Kind::NO_MEMORY
                                                                                   : ShapeTriage::Kind::INVALID;
  } catch (const io::InputError&) {
    out.kind = ShapeTriage::Kind::INVALID;
  }
  return out;
}

} // namespace ccsim::api
