#pragma once
// Simulates one training step per phase of a StepPlan on a SimGrid cluster: forward/backward per
// micro-batch x gradient accumulation (or a GPipe schedule over pipeline stages), then the plan's kernels,
// collectives and optimizer step, in order. It never knows which algorithm it runs.
// Call simulate_step() once per process (SimGrid's Engine is a per-process singleton).
// What compute, kernels and optimizer steps cost (ComputeTimes, compute_times) is sim/CostModel.hpp.

#include "sim/Collectives.hpp"
#include "sim/CommPlan.hpp"
#include "sim/CostModel.hpp"
#include "sim/StepTrace.hpp"
#include "sim/Topology.hpp"
#include "sim/Workload.hpp"

#include <cstdint>
#include <functional>
#include <string>
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
  /// denominator, sim/MessageCount.hpp, are the caller's). Empty: no calls.
  std::function<void(std::uint64_t messages)> on_progress;
  /// Every micro-batch's compute time is multiplied by this: the wait for the slowest rank of a synchronous step
  /// (sim/Stragglers.hpp), 1 on a uniform cluster.
  double compute_factor = 1;
  /// Every compression kernel and optimizer step is multiplied by this: a GPU slow for good runs them slower too, and
  /// the next collective (or step) waits for it (sim/Stragglers.hpp), 1 on a uniform cluster.
  double kernel_factor = 1;
  /// Pipelined phases, where every stage is its own GPU: rank r's forward and backward take nominal x noise_factor x
  /// rank_inverse_scale[r], and its kernels nominal x rank_inverse_scale[r], so a slow GPU slows its own stage and the
  /// others wait for it through the schedule. Empty: every stage at compute_factor and kernel_factor.
  std::vector<double> rank_inverse_scale;
  double noise_factor = 1;
};
inline constexpr std::uint64_t kProgressEvery = 256;

StepReport simulate_step(const Topology& topo, const Workload& workload, const StepPlan& plan, const StepShape& shape,
                         Fidelity fidelity, const StepOptions& options);
/// The same with only the busiest-links report optional.
StepReport simulate_step(const Topology& topo, const Workload& workload, const StepPlan& plan, const StepShape& shape,
                         Fidelity fidelity, bool report_links);

/// Simulated seconds of each op list of `calls`, run alone one after another on the cluster of `shape` (its
/// collectives on their groups; kernels cost their time only when `with_kernels`; optimizer ops are not allowed).
/// What `ccsim collective` measures, as nccl-tests times one collective call.
struct CallTimes {
  std::vector<double> seconds;
  std::uint64_t events = 0;
  double wall_s = 0;
};
CallTimes simulate_calls(const Topology& topo, const StepShape& shape, const std::vector<std::vector<Op>>& calls,
                         Fidelity fidelity, bool with_kernels,
                         const std::function<void(std::uint64_t messages)>& on_progress = {});

} // namespace ccsim::sim
