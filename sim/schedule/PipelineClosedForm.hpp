#pragma once
// Fast fidelity's pipeline (issue 49): the schedule sim/schedule/PipelineSchedule.cpp simulates event by event, computed
// in closed form. The network is asked once per direction how long a message takes when every stage of every chain
// sends at once, as they do in the schedule's steady state; the schedule's recurrence (pipeline_makespan_s) then
// multiplies that out over the micro-batches. A 1T GPT at pp 64 runs 512 x 64 x 2 messages per chain in exact
// fidelity and 2 x 63 flows in fast; the time no longer grows with the number of micro-batches beyond O(pp x m)
// additions.
//
// What it leaves out: warm-up and cool-down send fewer messages at once than the steady state, so where pipeline
// messages share a bottleneck (one NIC per node, an oversubscribed core) they go faster there than the closed form
// charges; on a fabric where every stage pair has links of its own the two agree to rounding (tests/sim/
// PipelineClosedForm_test.cpp holds fast within 1 % of exact on shapes small enough to simulate whole).

#include "sim/step/StepContext.hpp"

#include <cstddef>
#include <vector>

namespace ccsim::sim {

/// Whether run_pipeline computes `c`'s pipeline instead of simulating it: in fast fidelity, unless spans per rank are
/// recorded (simulate --trace wants every send and unit).
bool pipeline_in_closed_form(const StepContext& c);

/// The pipeline of `phase` on the chains marked in `simulated` (the others copy them and were counted by the caller),
/// computed: advances the clock by the slowest chain's makespan and sets r.pipeline_forward_comm_s and
/// r.pipeline_backward_comm_s to the first simulated chain's message times between its first two stages.
void run_pipeline_closed_form(StepContext& c, const PhasePlan& phase, const std::vector<std::vector<int>>& chains,
                              const std::vector<char>& simulated, double kernel_s, PhaseReport& r);

} // namespace ccsim::sim
