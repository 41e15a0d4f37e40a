#pragma once
// Internal to the step engine: a pipelined phase under GPipe — on every chain of pp stages (sim/layout/PipelineGroups.hpp),
// all micro-batches forward through the stages, then all backward, each boundary sending the plan's bytes per
// micro-batch (AQ-SGD §4, Fig. 2) with its quantize/dequantize kernels on both sides.

#include "sim/step/StepContext.hpp"

namespace ccsim::sim {

/// Runs the pipeline schedule of `phase` on every chain; sets r.compute_s, r.compression_s, r.comm_s and the per
/// micro-batch send times between the first two stages (r.pipeline_forward_comm_s, r.pipeline_backward_comm_s).
void run_pipeline(StepContext& c, const PhasePlan& phase, PhaseReport& r);

} // namespace ccsim::sim
