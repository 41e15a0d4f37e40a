#pragma once
// Internal to the step engine: the collectives a phase runs hidden under compute (CommPlan.hpp's
// hidden_under_compute; docs/overlap.md). Each is split into buckets (OverlapSettings::bucket_bytes). Before the first
// phase, one full bucket and the tail bucket of each are simulated alone on the cluster (every group of the op's kind
// at once, as in the step) and their times and traffic kept; in the step, the buckets' schedule under the pass
// (sim/layout/OverlapSchedule.hpp) gives what the pass cannot hide, and each bucket's traffic is counted once. Buckets of
// one size take one time: nothing else is on the network while a pass computes.

#include "sim/step/StepContext.hpp"

namespace ccsim::sim {

/// Simulates a full and a tail bucket of every hidden op of every phase of c.plan, keeping their times and traffic in
/// c.hidden; the byte, message and link counters are left as they were, and the clock moves on (each phase's time
/// is measured from its own start).
void measure_hidden_ops(StepContext& c);

/// What one phase's hidden ops leave exposed: seconds before the first forward pass (weights not yet prefetched),
/// after the last backward pass (gradients not yet reduced), and inside the passes (tensor-parallel collectives that
/// outlast the GEMMs beside them, summed over the step's layers and micro-batches).
struct HiddenExposure {
  double before_forward_s = 0;
  double after_backward_s = 0;
  double beside_gemms_s   = 0;
  double total() const { return before_forward_s + after_backward_s + beside_gemms_s; }
};

/// Charges phase `phase_index`'s hidden ops under a forward pass of forward_s and a backward pass of backward_s:
/// their bytes, messages and seconds (comm_s, allreduce_s) into `r`; returns what stays exposed (the caller adds it
/// to r.exposed_comm_s and to its clock).
HiddenExposure charge_hidden_ops(StepContext& c, int phase_index, double forward_s, double backward_s, PhaseReport& r);

/// Trace spans (lane 1) of the phase's hidden ops: prefetches from forward_start_s, reductions from backward_start_s
/// (the last backward pass's start), each as long as its buckets take together.
void record_hidden_spans(StepContext& c, int phase_index, double forward_start_s, double backward_start_s);

} // namespace ccsim::sim
