#pragma once
// What a tensor-parallel collective leaves exposed beside the GEMM it overlaps under Megatron-Core's
// --tp-comm-overlap (sim/model/CommPlan.hpp, GemmOverlapMethod; docs/overlap.md, "Tensor-parallel overlap"). Closed
// forms of a collective of t_c seconds and a GEMM of t_g seconds, both split into n equal chunks where the method
// chunks them; the GEMM is not slowed by the communication kernels' SMs (not modelled: see docs/overlap.md).

#include "sim/compute/CostModel.hpp"
#include "sim/model/CommPlan.hpp"

namespace ccsim::sim {

/// PIPELINE (a GEMM followed by its reduce-scatter, in n chunks): chunk i's reduce-scatter runs beside chunk i + 1's
/// GEMM, and the last chunk's has no GEMM beside it: exposed = t_c / n + (n - 1) / n * max(0, t_c - t_g).
double pipelined_exposed_s(double comm_s, double gemm_s, int chunks);

/// RING_EXCHANGE (an all-gather feeding a GEMM, n = tp chunks in n - 1 point-to-point steps of t_c / (n - 1)): the GEMM
/// starts on the local chunk, and each later chunk's GEMM waits for its step: exposed = max(0, t_c - (n - 1) / n * t_g).
/// Where t_c >= t_g this equals pipelined_exposed_s; below it is less (no last chunk waits), and 0 once a step is no
/// longer than a GEMM chunk (t_c / (n - 1) <= t_g / n).
double ring_exchange_exposed_s(double comm_s, double gemm_s, int chunks);

/// BULK (the whole collective beside a whole GEMM that does not wait for it): exposed = max(0, t_c - t_g).
double bulk_exposed_s(double comm_s, double gemm_s);

/// The exposed seconds of one collective of `method` (`chunks` as GemmOverlap::chunks).
double gemm_overlap_exposed_s(GemmOverlapMethod method, double comm_s, double gemm_s, int chunks);

/// One layer's GEMM `name` on one GPU for one micro-batch, as the per-operator model priced it (its forward or backward
/// pass; a recomputed forward GEMM is the forward's), times `compute_scale` (the run's compute speed factor). Throws
/// std::logic_error without a per-operator account or such a GEMM: the run's resolution refuses --tp-overlap there.
double layer_gemm_s(const ComputeTimes& compute, const std::string& name, double compute_scale);

/// What `op` (a CommOp with beside_gemms) leaves exposed in a step when the whole op took `measured_s` on the cluster:
/// each listed collective runs `runs` times at share x measured_s beside its GEMM (layer_gemm_s); the rest of the op,
/// measured_s x (1 - the listed shares), stays exposed in full.
double beside_gemms_exposed_s(const ComputeTimes& compute, double compute_scale, const CommOp& op, double measured_s);

} // namespace ccsim::sim
