#pragma once
// Internal to the step engine: runs a phase's ops in order on every GPU at once — each collective on every group of
// its kind (scheduled into rounds by sim/collective/Collectives.hpp), each compression kernel and optimizer step as the time it
// costs (sim/compute/CostModel.hpp) — and adds what each took to the phase's report.

#include "sim/step/StepContext.hpp"

#include <vector>

namespace ccsim::sim {

/// Runs one collective on every group of its kind; returns the simulated seconds it took.
double run_collective(StepContext& c, const CommOp& op);

/// Runs `op` with `bytes` alone on the cluster; returns its seconds and fills `traffic` with what it sent, the
/// counters (events, bytes, link loads) then put back as they were. The clock moves on: measure before a phase starts.
double measure_collective(StepContext& c, CommOp op, std::uint64_t bytes, BucketTraffic& traffic);

/// Adds `count` times `traffic` to the counters (and tells the progress callback).
void count_traffic(StepContext& c, const BucketTraffic& traffic, std::uint64_t count);

/// The share of an in-layer collective's step time (tensor, expert and context parallelism: each runs inside every
/// micro-batch's forward and backward of a stage) that a pipeline's bubble adds: it lengthens each micro-batch's
/// passes, so the fill and drain's (pp - 1) / vpp micro-batches of every stage pay it too (Narayanan et al. 2021
/// §2.2.1: bubble (p - 1)(t_f + t_b), t_f and t_b the passes with their collectives); the step times it for its m
/// micro-batches. 0 without a pipeline or for any other group.
double in_layer_bubble_share(const StepShape& s, GroupKind group);

/// Runs the ops of `ops` after the compute, one after another, all but the collectives hidden under compute
/// (hidden_under_compute, sim/schedule/OverlappedComm.hpp). Returns the simulated seconds they took together.
double run_ops(StepContext& c, const std::vector<Op>& ops, PhaseReport& r);

} // namespace ccsim::sim
