#pragma once
// Simulates one training step per phase of a StepPlan on a SimGrid cluster: forward/backward per
// micro-batch x gradient accumulation (or a GPipe schedule over pipeline stages), then the plan's kernels,
// collectives and optimizer step, in order. It never knows which algorithm it runs.
// Call simulate_step() once per process (SimGrid's Engine is a per-process singleton).
// What compute, kernels and optimizer steps cost (ComputeTimes, compute_times) is sim/compute/CostModel.hpp.

#include "sim/collective/Collectives.hpp"
#include "sim/model/CommPlan.hpp"
#include "sim/compute/CostModel.hpp"
#include "sim/step/StepReport.hpp"
#include "sim/platform/Topology.hpp"
#include "sim/model/Workload.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ccsim::sim {

StepReport simulate_step(const Topology& topo, const Workload& workload, const StepPlan& plan, const StepShape& shape,
                         Fidelity fidelity, const StepOptions& options);
/// The same with only the busiest-links report optional.
StepReport simulate_step(const Topology& topo, const Workload& workload, const StepPlan& plan, const StepShape& shape,
                         Fidelity fidelity, bool report_links);

/// For a process that ends right after its simulation (a forked child, which then calls _exit): simulate_step and
/// simulate_calls leave their SimGrid engine and platform to the process's end instead of tearing them down, which
/// only frees memory the end frees anyway (perf: a tenth of a short validate simulation). Results are unchanged.
void leave_simulation_to_process_exit();

/// Simulated seconds of each op list of `calls`, run alone one after another on the cluster of `shape` (its
/// collectives on their groups; kernels cost their time only when `with_kernels`; optimizer ops are not allowed).
/// What `ccsim collective` measures, as nccl-tests times one collective call.
struct CallTimes {
  std::vector<double> seconds;
  std::uint64_t events = 0;
  double wall_s = 0;
};
CallTimes simulate_calls(const Topology& topo, const StepShape& shape, const std::vector<std::vector<Op>>& calls,
                         Fidelity fidelity, bool with_kernels,
                         const std::function<void(std::uint64_t messages)>& on_progress = {});

} // namespace ccsim::sim
