#pragma once
// Internal to the step engine: what the controller actor does. SimGrid's comm-host2host example recommends one
// central actor for "a centralized simulation": it issues every flow and waits for it, so the simulated clock at
// its side is the step's.

#include "sim/step/StepContext.hpp"

#include <vector>

namespace ccsim::sim {

/// Replays one step of each phase of c.plan in turn — compute (data-parallel or pipelined), then the phase's ops —
/// and appends each phase's report to c.reports.
void run_phases(StepContext& c);

/// Runs each op list of `calls` alone, one after another, and appends the simulated seconds of each to `seconds`.
/// Kernels cost their time only when `with_kernels`; there is no optimizer op.
void time_calls(StepContext& c, const std::vector<std::vector<Op>>& calls, bool with_kernels,
                std::vector<double>& seconds);

} // namespace ccsim::sim
