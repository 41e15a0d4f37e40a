#pragma once
// What a simulated step reports (per phase: times, bytes; the busiest links; the trace) and what a simulation is asked
// to record beyond its totals. The step machinery (sim/step/, sim/schedule/) fills it; sim/engine/StepEngine.hpp runs
// it.

#include "sim/compute/CostModel.hpp"
#include "sim/step/StepTrace.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <stdexcept>
#include <vector>

namespace ccsim::sim {

struct PhaseReport {
  std::string name;
  double fraction = 1;
  double step_time_s = 0;
  double compute_s = 0;      // forward + backward on the critical path (all micro-batches)
  double comm_s = 0;         // time collectives (or pipeline sends) were in flight
  double exposed_comm_s = 0; // communication not hidden under compute
  double compression_s = 0;  // compression kernels
  double optimizer_s = 0;
  double allreduce_s = 0;    // the gradient/momentum synchronisation (CommOp::synchronisation)
  double inter_node_bytes_per_gpu = 0; // bytes sent per GPU across nodes
  double intra_node_bytes_per_gpu = 0;
  // Pipeline phases: per micro-batch, between the first two stages (AQ-SGD Table 3's breakdown).
  double pipeline_forward_comm_s = 0;
  double pipeline_backward_comm_s = 0;
};

struct LinkReport {
  std::string name;
  double bytes = 0;
  double utilisation = 0; // bytes / (capacity x simulated time)
};

struct StepReport {
  std::vector<PhaseReport> phases;
  ComputeTimes compute;
  std::uint64_t events = 0; // messages simulated
  double wall_s = 0;
  std::vector<LinkReport> links; // busiest first, when asked for
  StepTrace trace;               // spans and/or link intervals, when asked for
};

/// What a simulation records beyond its totals.
struct StepOptions {
  bool busiest_links = false;  // StepReport::links: the 10 busiest links over the whole run
  bool trace_spans = false;    // StepReport::trace.spans
  bool links_over_time = false; // StepReport::trace.link_intervals: every NIC and fabric link, per op
  /// Called with the messages simulated so far, every kProgressEvery messages (the wall-clock throttle and the
  /// denominator, sim/collective/MessageCount.hpp, are the caller's). Empty: no calls.
  std::function<void(std::uint64_t messages)> on_progress;
  /// Every micro-batch's compute time is multiplied by this: the wait for the slowest rank of a synchronous step
  /// (sim/compute/Stragglers.hpp), 1 on a uniform cluster.
  double compute_factor = 1;
  /// Every compression kernel and optimizer step is multiplied by this: a GPU slow for good runs them slower too, and
  /// the next collective (or step) waits for it (sim/compute/Stragglers.hpp), 1 on a uniform cluster.
  double kernel_factor = 1;
  /// Pipelined phases, where every stage is its own GPU: rank r's forward and backward take nominal x noise_factor x
  /// rank_inverse_scale[r], and its kernels nominal x rank_inverse_scale[r], so a slow GPU slows its own stage and the
  /// others wait for it through the schedule. Empty: every stage at compute_factor and kernel_factor.
  std::vector<double> rank_inverse_scale;
  double noise_factor = 1;
  /// Nodes to build (Platform::slots; 0: every node), from platform_node_slots. A step that touches more throws
  /// OutOfNodeSlots: its caller runs it again, with 0, in a fresh process (one SimGrid Engine per process). Ignored
  /// (every node) when links are reported, since they are named by node.
  int node_slots = 0;
};
inline constexpr std::uint64_t kProgressEvery = 256;

/// simulate_step touched more nodes than StepOptions::node_slots built (its result would be wrong): run it again with
/// every node, in a process that has not made a SimGrid Engine yet.
struct OutOfNodeSlots : std::runtime_error {
  using std::runtime_error::runtime_error;
};

} // namespace ccsim::sim
