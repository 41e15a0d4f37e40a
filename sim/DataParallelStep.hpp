#pragma once
// Internal to the step engine: the compute of a data-parallel phase — every micro-batch's forward and backward on
// every GPU in lockstep, with the collectives the plan flags as overlappable running under the last backward pass.

#include "sim/StepContext.hpp"

namespace ccsim::sim {

/// Runs the micro-batches of `phase` (and its overlapped collectives); sets r.compute_s and adds the overlapped
/// collectives' time to r.comm_s and, where it outlasts the backward pass, to r.exposed_comm_s.
void run_data_parallel_compute(StepContext& c, const PhasePlan& phase, PhaseReport& r);

} // namespace ccsim::sim
