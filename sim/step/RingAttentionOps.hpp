#pragma once
// Internal to the step engine: context parallelism's K,V ring (sim/model/CommPlan.hpp, RingAttention). Its rounds run
// beside the attention of every layer, so it is not one collective after the compute: one round of each size is
// simulated on the cluster before the first phase (every ring at once, as in the step), and in the step each round
// costs what sim/layout/OverlapSchedule.hpp's ring_attention_exposure says the attention does not hide.

#include "sim/step/StepContext.hpp"

namespace ccsim::sim {

/// Simulates one round of one block and one of two blocks of every ring op of c.plan, keeping their seconds and
/// traffic in c.ring_rounds; the counters are left as they were and the clock moves on (before the first phase).
void measure_ring_rounds(StepContext& c);

/// Charges ring op `op` (CommOp::ring set): every round's traffic, its seconds into r.comm_s, and what the attention
/// leaves exposed into r.exposed_comm_s and onto the clock. Returns the exposed seconds.
double run_ring_attention(StepContext& c, const CommOp& op, PhaseReport& r);

} // namespace ccsim::sim
