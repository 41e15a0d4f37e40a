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
/// Each node's inter-node rate (all its NICs) and each GPU's port to its node's switch, bytes/s, as the platform builds
/// them (sim/platform/Platform.cpp: a node's overrides replace the topology's rates).
struct PortRates {
  std::vector<double> uplink, port; // per node
};

PortRates port_rates(const sim::Topology& t, int nodes)
{
  PortRates r;
  for (int n = 0; n < nodes; ++n) {
    const auto own = t.nodes.find(n);
    r.uplink.push_back(own != t.nodes.end() && own->second.nic_bytes_per_s ? *own->second.nic_bytes_per_s * t.nic_count
                                                                           : t.node_uplink_bytes_per_s());
    r.port.push_back(own != t.nodes.end() && own->second.intra_bytes_per_s ? *own->second.intra_bytes_per_s
                                                                           : t.intra_bytes_per_s);
  }
  return r;
}

/// Seconds the busiest NIC of the cluster needs, at its full rate, for the inter-node bytes of `phase`: its collectives
/// as the engine schedules them (in a pipelined phase only those it runs there, sim/collective/MessageCount.hpp) and its
/// pipeline's per-micro-batch sends. Every byte that leaves (enters) a node crosses that node's uplink one way, so no
/// schedule and no overlap with compute can carry them faster.
double nic_lower_bound_s(const ResolvedRun& run, const sim::PhasePlan& phase, const PortRates& rates)
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
  for (std::size_t n = 0; n < rates.uplink.size(); ++n)
    if (rates.uplink[n] > 0)
      worst = std::max(worst, std::max(out[n], in[n]) / rates.uplink[n]);
  return worst;
}

/// Seconds a collective that runs by itself (nothing beside it: sim/step/PhaseOps.cpp, run_ops) needs at least. Its
/// rounds run one after another, and a round lasts at least as long as the busiest of the ports its flows cross needs
/// for the round's bytes at full rate: every byte a GPU sends or receives crosses its one full-duplex port to the
/// node's switch (sim/platform/Topology.hpp), and every byte between nodes crosses both nodes' uplinks. Flows merged
/// per node pair (fast fidelity, Topology::node_pair_flows_mergeable) bypass the GPU ports, so only their uplinks
/// count. Latencies, protocol floors and the network model's efficiency only add to it.
double collective_lower_bound_s(const ResolvedRun& run, const sim::CommOp& op, const sim::RankLayout& layout,
                                const PortRates& rates)
{
  const auto& s = run.shape;
  const int gpn = run.topo.gpus_per_node;
  std::vector<double> gpu_out(static_cast<std::size_t>(s.gpus), 0), gpu_in(gpu_out);
  std::vector<double> node_out(rates.uplink.size(), 0), node_in(node_out);
  double total = 0;
  for (const auto& round : sim::schedule_collective(op.collective, op.algo, layout.groups(op.group), op.bytes,
                                                    run.fidelity, gpn, s.merge_node_pairs)) {
    std::fill(gpu_out.begin(), gpu_out.end(), 0.0);
    std::fill(gpu_in.begin(), gpu_in.end(), 0.0);
    std::fill(node_out.begin(), node_out.end(), 0.0);
    std::fill(node_in.begin(), node_in.end(), 0.0);
    for (const auto& f : round.flows) {
      if (f.src == f.dst || f.src < 0 || f.dst < 0 || f.src >= s.gpus || f.dst >= s.gpus)
        continue;
      const auto bytes  = static_cast<double>(f.bytes);
      const bool across = f.src / gpn != f.dst / gpn;
      if (across) {
        node_out[static_cast<std::size_t>(f.src / gpn)] += bytes;
        node_in[static_cast<std::size_t>(f.dst / gpn)] += bytes;
      }
      if (!across || !s.merge_node_pairs) {
        gpu_out[static_cast<std::size_t>(f.src)] += bytes;
        gpu_in[static_cast<std::size_t>(f.dst)] += bytes;
      }
    }
    double longest = 0;
    for (std::size_t g = 0; g < gpu_out.size(); ++g)
      if (const double rate = rates.port[g / static_cast<std::size_t>(gpn)]; rate > 0)
        longest = std::max(longest, std::max(gpu_out[g], gpu_in[g]) / rate);
    for (std::size_t n = 0; n < node_out.size(); ++n)
      if (rates.uplink[n] > 0)
        longest = std::max(longest, std::max(node_out[n], node_in[n]) / rates.uplink[n]);
    total += longest;
  }
  return total;
}

/// Seconds of a phase that nothing runs beside: the collectives run_ops runs by themselves (neither hidden under
/// compute nor context parallelism's ring, which overlaps attention), each at least its collective_lower_bound_s, and
/// the compression kernels and the optimizer, whose times are closed forms (sim/compute/CostModel.hpp).
double sequential_lower_bound_s(const ResolvedRun& run, const sim::PhasePlan& phase, const PortRates& rates)
{
  const auto& s = run.shape;
  const sim::RankLayout layout{s.dp, s.tp, s.pp, run.topo.gpus_per_node, s.ep, s.cp};
  const double slow = std::min(1.0, run.straggling.kernel_factor);
  double total      = 0;
  for (const auto& op : phase.ops) {
    if (const auto* comm = std::get_if<sim::CommOp>(&op)) {
      if (!sim::hidden_under_compute(*comm, s) && !comm->ring)
        total += collective_lower_bound_s(run, *comm, layout, rates);
    } else if (const auto* k = std::get_if<sim::KernelOp>(&op)) {
      total += sim::kernel_seconds(run.topo, *k) * slow;
    } else if (const auto* o = std::get_if<sim::OptimizerOp>(&op)) {
      total += sim::optimizer_seconds(run.topo, run.work, *o) * slow;
    }
  }
  return total;
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
  // Each phase takes at least its compute followed by what runs by itself after it (sim/engine/StepController.cpp:
  // the pipeline or the micro-batches, then run_ops), and at least its busiest NIC's bytes; the step is the phases'
  // mean weighted by their shares of steps (api/run/Simulation.cpp).
  double total = 0, bound = 0;
  for (const auto& p : run.plan.phases)
    total += p.fraction;
  const int gpn    = run.topo.gpus_per_node;
  const auto rates = port_rates(run.topo, (run.shape.gpus + gpn - 1) / gpn);
  for (const auto& p : run.plan.phases)
    bound += (total > 0 ? p.fraction / total : 0) *
             std::max(compute + sequential_lower_bound_s(run, p, rates), nic_lower_bound_s(run, p, rates));
  return bound;
}

namespace {
/// A triage of a shape that runs: its step's lower bound, its samples per step and whether it recomputes.
void fill_runs(ShapeTriage& out, const ResolvedRun& run)
{
  out.bound_s   = step_lower_bound_s(run);
  out.samples   = static_cast<double>(run.shape.global_batch);
  out.recompute = run.recompute;
}
} // namespace

ShapeTriage triage_shape(const SimulateRequest& request, InputCache& cache, bool search_recompute)
{
  ShapeTriage out;
  if (search_recompute && !request.recompute) {
    // The lightest mode that fits (ShapeBound.hpp): `none` refuses a shape that needs recomputation, `selective` one
    // without an architecture or one that fits only with full recomputation (check_memory). What fits with neither
    // is resolved as simulate would resolve it without --recompute (below): the workload's recipe, and full
    // recomputation where only that fits.
    SimulateRequest tried = request;
    for (const char* mode : {"none", "selective"}) {
      tried.recompute = mode;
      try {
        const ResolvedRun run = resolve_run(tried, &cache);
        // Fits only with full recomputation. A request with --allow-oom runs `selective` as asked, so its verdict
        // says so (check_memory upgraded it to full before, which the old test of run.recompute caught).
        if (run.recompute || (tried.recompute == std::optional<std::string>("selective") &&
                              run.memory_fit.verdict == MemoryVerdict::FITS_WITH_RECOMPUTATION))
          continue;
        fill_runs(out, run);
        out.recompute_mode = mode;
        return out;
      } catch (const io::InputError&) {
        // this mode does not fit, or the shape cannot run at all (the resolve below says which)
      }
    }
  }
  try {
    fill_runs(out, resolve_run(request, &cache));
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
