#pragma once
// Internal to the step engine: a pipelined phase under GPipe (and, with model chunks, interleaved 1F1B) — on every chain of pp stages (sim/layout/PipelineGroups.hpp),
// all micro-batches forward through the stages, then all backward, each boundary sending the plan's bytes per
// micro-batch (AQ-SGD §4, Fig. 2) with its quantize/dequantize kernels on both sides. With blocking sends
// (PipelineComm::blocking_sends) each stage waits for its message before its next unit, which in this order costs
// what Megatron's 1F1B with blocking exchanges does per micro-batch (docs/overlap.md).

#include "sim/step/StepContext.hpp"

#include <cstdint>

namespace ccsim::sim {

/// The units of work each stage runs per direction in a step: one per micro-batch and model chunk, m x vpp. Megatron's
/// interleaved 1F1B (vpp chunks per rank, Narayanan et al. 2021 §2.2.2) is simulated as GPipe over these units, each
/// 1/vpp of a stage's work per micro-batch: its comm-free makespan (m vpp + pp - 1)(f + b) / vpp is the interleaved
/// schedule's, m (f + b) plus the bubble (pp - 1)(f + b) / vpp, and each pair of neighbouring stages exchanges vpp
/// messages per micro-batch and direction, as interleaving does. Not simulated: the vpp - 1 sends per micro-batch from
/// the last stage back to the first (from one chunk to the next round of chunks), on a link the chain does not use
/// otherwise; Megatron-LM's own order with them is within 0.15 % of this on the validation rows' shapes
/// (tests/sim/MegatronOrder_test.cpp).
int pipeline_units(const StepContext& c);

/// The bytes one pipeline message of `payload` bytes from rank `src` to `dst` puts on the wire: on a tc-shaped link a
/// long transfer goes slower than the rate (sim/platform/ShapedTransfer.hpp), modelled as more bytes.
std::uint64_t pipeline_wire_bytes(const StepContext& c, int src, int dst, std::uint64_t payload);

/// Runs the pipeline schedule of `phase` on every chain, event by event or, in fast fidelity, in closed form
/// (sim/schedule/PipelineClosedForm.hpp); sets r.compute_s, r.compression_s, r.comm_s and the per micro-batch send
/// times between the first two stages (r.pipeline_forward_comm_s, r.pipeline_backward_comm_s).
void run_pipeline(StepContext& c, const PhasePlan& phase, PhaseReport& r);

} // namespace ccsim::sim
