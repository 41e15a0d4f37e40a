#pragma once
// The compute-only critical path of a pipelined step: what sim/schedule/PipelineSchedule.cpp's GPipe schedule would take if
// every transfer between stages were free. The step's time beyond it is communication the schedule could not hide
// (PhaseReport::exposed_comm_s); the pipeline's bubble, (pp - 1)(f + b) on uniform stages, is inside it: idle compute,
// not communication.

#include "sim/step/StepContext.hpp"

#include <vector>

namespace ccsim::sim {

/// What each stage of one chain costs per unit of work (one micro-batch of one model chunk): its compute, plus a
/// quantize/dequantize kernel per send and per receive; and how long each of its messages takes on the wire,
/// `send_forward_s[s]` from stage s to s + 1 and `send_backward_s[s]` from stage s to s - 1 (0 where it sends none).
struct StageTimes {
  std::vector<double> forward_s, backward_s;
  std::vector<double> send_forward_s, send_backward_s;
  bool blocking_sends = false; // a stage's next unit waits for its send (PipelineComm::blocking_sends)
};

/// The schedule of sim/schedule/PipelineSchedule.cpp computed instead of simulated: every stage runs its forwards in
/// order, waits for its last forward message to leave, then runs its backwards; a unit starts once its input has
/// arrived, and a stage's sends leave one after another, each once its unit is computed and the previous send is done:
///   F[s][i] = max(F[s][i-1], S[s-1][i]) + f[s]      S[s][i] = max(S[s][i-1], F[s][i]) + d_f[s]
///   B[s][i] = max(B[s][i-1], R[s+1][i]) + b[s]      R[s][i] = max(R[s][i-1], B[s][i]) + d_b[s]
/// with B[s][-1] = max(F[s][m-1], S[s][m-1]) and R[s][-1] = B[s][-1]. With blocking sends a unit also waits for its
/// stage's previous send: F[s][i] = max(S[s][i-1], S[s-1][i]) + f[s] where stage s sends (B likewise with R), which
/// on uniform stages adds d_f + d_b per unit. Returns when the last stage is done, the latest
/// B[s][m-1] or R[s][m-1]. Without sends it is GPipe's (m + pp - 1)(f + b) on uniform stages. O(pp x m) arithmetic.
double pipeline_makespan_s(const StageTimes& t, int m);

/// GPipe over stages with per-micro-batch forward and backward times `forward_s[s]`, `backward_s[s]`, m micro-batches,
/// transfers free: pipeline_makespan_s with every send taking no time.
double gpipe_makespan_s(const std::vector<double>& forward_s, const std::vector<double>& backward_s, int m);

/// The work per unit of each stage of the chain `ranks` (stage order), as the schedule charges it: compute at the
/// stage's GPU speed (1/vpp of a micro-batch) and `kernel_s` per send and per receive side; no sends.
StageTimes chain_stage_work(const StepContext& c, const std::vector<int>& ranks, double kernel_s);

/// The quantize/dequantize time of one side (send or receive) of one pipeline message of `phase`.
double pipeline_kernel_side_s(const StepContext& c, const PhasePlan& phase);

/// The comm-free time of `phase`'s pipeline on c's cluster: every stage's work as the schedule charges it (compute at
/// its GPU's speed, a quantize/dequantize kernel per send and per receive), the slowest chain's.
double comm_free_pipeline_s(const StepContext& c, const PhasePlan& phase);

} // namespace ccsim::sim
