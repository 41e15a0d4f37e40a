#pragma once
// What happened when inside one simulated step of each phase: spans per rank (or per node beyond 64 ranks) for
// compute, kernels, the optimizer and every collective, named by the plan's op names, and the bytes each tracked
// link carried during each op. `simulate --trace` writes the spans as Chrome trace events; `--links` reports the
// per-link bytes and utilisation over time. The step engine fills it; it knows nothing of file formats.

#include <string>
#include <vector>

namespace ccsim::sim {

struct TraceSpan {
  int phase = 0;        // index into StepTrace::phases
  int track = 0;        // a rank, or a node when StepTrace::per_node
  int lane = 0;         // 0: the GPU's work; 1: its communication under compute (pipeline sends, hidden collectives)
  std::string name;     // the op's label ("allreduce gradients"), a kernel name, "forward 3", ...
  std::string category; // "compute", "kernel", "optimizer", "collective", "pipeline send"
  double start_s = 0;   // simulated clock
  double end_s = 0;
};

/// The bytes every tracked link carried while one op (or the compute before the ops) ran.
struct LinkInterval {
  int phase = 0;
  std::string op;
  double start_s = 0;
  double end_s = 0;
  std::vector<double> bytes; // per link, in StepTrace::links order
};

struct StepTrace {
  /// Beyond this many ranks, a track stands for a node (its first GPU), so a trace file stays small.
  static constexpr int kMaxRankTracks = 64;

  std::vector<std::string> phases;
  std::vector<double> phase_start_s; // simulated clock when each phase's step began
  bool per_node = false;
  int tracks = 0;
  std::vector<TraceSpan> spans;
  std::vector<std::string> links;     // tracked links (NIC and fabric halves: "nic3_UP")
  std::vector<double> link_bytes_per_s; // their capacities
  std::vector<LinkInterval> link_intervals;
};

} // namespace ccsim::sim
