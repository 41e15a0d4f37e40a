#pragma once
// The compute-only critical path of a pipelined step: what sim/schedule/PipelineSchedule.cpp's GPipe schedule would take if
// every transfer between stages were free. The step's time beyond it is communication the schedule could not hide
// (PhaseReport::exposed_comm_s); the pipeline's bubble, (pp - 1)(f + b) on uniform stages, is inside it: idle compute,
// not communication.

#include "sim/step/StepContext.hpp"

#include <vector>

namespace ccsim::sim {

/// GPipe over stages with per-micro-batch forward and backward times `forward_s[s]`, `backward_s[s]`, m micro-batches,
/// every stage running its forwards in order and then its backwards in order (stage s's backward i after stage s+1's),
/// transfers free: F[s][i] = max(F[s][i-1], F[s-1][i]) + f[s], B[s][i] = max(B[s][i-1], B[s+1][i]) + b[s] with
/// B[s][-1] = F[s][m-1]. Returns the last backward's end, B[0][m-1]; (m + pp - 1)(f + b) on uniform stages.
double gpipe_makespan_s(const std::vector<double>& forward_s, const std::vector<double>& backward_s, int m);

/// The comm-free time of `phase`'s pipeline on c's cluster: every stage's work as the schedule charges it (compute at
/// its GPU's speed, a quantize/dequantize kernel per send and per receive), the slowest chain's.
double comm_free_pipeline_s(const StepContext& c, const PhasePlan& phase);

} // namespace ccsim::sim
