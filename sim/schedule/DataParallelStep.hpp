#pragma once
// Internal to the step engine: the compute of a data-parallel phase — every micro-batch's forward and backward on
// every GPU in lockstep, with the collectives hidden under compute (sim/schedule/OverlappedComm.hpp) beside them.

#include "sim/step/StepContext.hpp"

namespace ccsim::sim {

/// Runs the micro-batches of phase `phase_index` (and its hidden collectives); sets r.compute_s and adds the hidden
/// collectives' time to r.comm_s and what they leave exposed to r.exposed_comm_s.
void run_data_parallel_compute(StepContext& c, int phase_index, PhaseReport& r);

} // namespace ccsim::sim
