// The step engine's set-up: a fresh SimGrid engine and platform per simulation, the context its controller actor
// works in (sim/step/StepContext.hpp), and the report read back once the simulation has run. What the controller does
// is in sim/engine/StepController.cpp; what each part of a step costs, in sim/compute/CostModel.cpp.
#include "sim/engine/StepEngine.hpp"

#include "sim/platform/Platform.hpp"
#include "sim/step/StepAccounting.hpp"
#include "sim/step/StepContext.hpp"
#include "sim/engine/StepController.hpp"
#include "sim/collective/SymmetricRound.hpp"

#include <simgrid/s4u.hpp>
#include <xbt/log.h>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <variant>

namespace sg4 = simgrid::s4u;

namespace ccsim::sim {

namespace {
bool g_leave_to_exit = false; // leave_simulation_to_process_exit()

/// SimGrid's Engine for one simulation of `topo`: quiet logging, the topology's network model (set before the first
/// zone exists).
std::unique_ptr<sg4::Engine> make_engine(const Topology& topo)
{
  xbt_log_control_set("root.thres:critical");
  char name[] = "ccsim";
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer cannot follow SimGrid's own stack switching between actors (scripts/test-sanitizers.sh):
  // system threads as contexts keep its stack bookkeeping exact. Same simulation, only slower. Given on the command
  // line the Engine parses, so it holds for every Engine a process makes (set_config after the constructor did not
  // reach the context factory of a second Engine in one process: a swapped context was freed under ASan).
  char factory[] = "--cfg=contexts/factory:thread";
  int argc       = 2;
  char* argv[]   = {name, factory, nullptr};
#else
  int argc     = 1;
  char* argv[] = {name, nullptr};
#endif
  auto engine = std::make_unique<sg4::Engine>(&argc, argv);
  // ccsim's actors are shallow (no recursion, no large locals): 64 KiB stacks instead of SimGrid's 8 MiB (a stack
  // costs its whole size in memory: 32,768 actors of 256 KiB held 8.3 GB, issue 19), and no
  // guard page (each costs the process two kernel memory maps, and a 16,384-GPU round runs 32,768 actors: the
  // default 65,530 maps would not do).
  sg4::Engine::set_config("contexts/stack-size:64");
  sg4::Engine::set_config("contexts/guard-size:0");
  configure_network_model(topo);
  return engine;
}

/// The end of a simulation: its engine and context are destroyed (the context first, as it points into the engine's
/// platform) unless the process ends right after and they are left to its end.
void finish(std::unique_ptr<sg4::Engine> engine, std::unique_ptr<StepContext> context)
{
  if (g_leave_to_exit) {
    (void)context.release();
    (void)engine.release();
    return;
  }
  // Explicitly, in this order: the order in which a function's parameters are destroyed is not specified.
  context.reset();
  engine.reset();
}

/// The context every simulation shares: the platform of `shape.gpus` GPUs, their rank layout, the latency factor.
void init_context(StepContext& c, const Topology& topo, const StepShape& shape, Fidelity fidelity, int node_slots)
{
  c.topo       = &topo;
  c.shape      = shape;
  c.fidelity   = fidelity;
  c.platform   = build_platform(topo, shape.gpus, node_slots);
  c.layout     = RankLayout{shape.dp, shape.tp, shape.pp, topo.gpus_per_node, shape.ep, shape.cp};
  c.lat_factor = latency_factor();
  c.reduce_symmetric = symmetric_rounds_enabled();
}
} // namespace

void leave_simulation_to_process_exit() { g_leave_to_exit = true; }

StepReport simulate_step(const Topology& topo, const Workload& workload, const StepPlan& plan, const StepShape& shape,
                         Fidelity fidelity, bool report_links)
{
  StepOptions options;
  options.busiest_links = report_links;
  return simulate_step(topo, workload, plan, shape, fidelity, options);
}

StepReport simulate_step(const Topology& topo, const Workload& workload, const StepPlan& plan, const StepShape& shape,
                         Fidelity fidelity, const StepOptions& options)
{
  const auto wall0 = std::chrono::steady_clock::now();
  const bool report_links = options.busiest_links || options.links_over_time;
  if (shape.gpus > topo.max_gpus())
    throw std::invalid_argument("more GPUs than the topology has");
  for (const auto& phase : plan.phases)
    if (phase.pipeline && shape.pp < 2)
      throw std::invalid_argument("phase '" + phase.name + "' is pipelined but pp < 2");
  const int node_slots = report_links ? 0 : options.node_slots; // links reported by name: every node's own

  auto engine = make_engine(topo);
  auto context = std::make_unique<StepContext>();
  StepContext& c = *context;
  init_context(c, topo, shape, fidelity, node_slots);
  c.workload = &workload;
  c.plan     = &plan;
  c.compute  = compute_times(topo, workload, shape);
  c.compute.backward_s += c.compute.recompute_s; // the recomputed forward runs inside every backward pass
  c.nominal  = c.compute;
  c.rank_inverse_scale = options.rank_inverse_scale;
  c.noise_factor       = options.noise_factor;
  c.compute.forward_s *= options.compute_factor;
  c.compute.backward_s *= options.compute_factor;
  c.kernel_factor = options.kernel_factor;
  StepReport report;
  c.trace              = &report.trace;
  c.record_spans       = options.trace_spans;
  c.on_progress        = options.on_progress;
  report.trace.per_node = shape.gpus > StepTrace::kMaxRankTracks;
  report.trace.tracks   = report.trace.per_node ? (shape.gpus + topo.gpus_per_node - 1) / topo.gpus_per_node : shape.gpus;

  if (report_links)
    track_links(c);
  if (options.links_over_time)
    for (auto* l : c.tracked) {
      report.trace.links.push_back(l->get_name());
      report.trace.link_bytes_per_s.push_back(l->get_bandwidth());
    }

  sg4::Actor::create("controller", c.platform.gpu(0), [&c] { run_phases(c); });
  engine->run();
  if (c.platform.out_of_slots) {
    const int slots = c.platform.slots * c.platform.slot_nodes;
    finish(std::move(engine), std::move(context));
    throw OutOfNodeSlots("the step touched more than the " + std::to_string(slots) +
                         " nodes built for it: it runs again on a platform of every node");
  }

  report.phases  = c.reports;
  report.compute = c.compute;
  report.events  = c.events;
  if (options.busiest_links)
    report.links = busiest_links(c, 10);
  if (!options.links_over_time)
    report.trace.link_intervals.clear();
  report.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  finish(std::move(engine), std::move(context));
  return report;
}

CallTimes simulate_calls(const Topology& topo, const StepShape& shape, const std::vector<std::vector<Op>>& calls,
                         Fidelity fidelity, bool with_kernels, const std::function<void(std::uint64_t)>& on_progress)
{
  const auto wall0 = std::chrono::steady_clock::now();
  if (shape.gpus > topo.max_gpus())
    throw std::invalid_argument("more GPUs than the topology has");
  for (const auto& call : calls)
    for (const auto& op : call)
      if (std::holds_alternative<OptimizerOp>(op))
        throw std::invalid_argument("simulate_calls: an optimizer op has no place in a collective call");
  auto engine = make_engine(topo);
  auto context = std::make_unique<StepContext>();
  StepContext& c = *context;
  init_context(c, topo, shape, fidelity, 0);
  c.on_progress = on_progress;
  CallTimes out;
  sg4::Actor::create("controller", c.platform.gpu(0), [&] { time_calls(c, calls, with_kernels, out.seconds); });
  engine->run();
  out.events = c.events;
  out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  finish(std::move(engine), std::move(context));
  return out;
}

} // namespace ccsim::sim
