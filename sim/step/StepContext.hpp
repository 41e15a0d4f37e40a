#pragma once
// Internal to the step engine (sim/engine/StepEngine.cpp and the files it is split into): the state one simulation shares
// between its controller actor, the collectives it runs and the pipeline stages — the platform, what the step costs,
// and what it has sent and recorded so far. Callers use sim/engine/StepEngine.hpp.

#include "sim/layout/OverlapSchedule.hpp"
#include "sim/platform/Platform.hpp"
#include "sim/layout/RankLayout.hpp"
#include "sim/step/StepReport.hpp"

#include <simgrid/s4u.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <utility>
#include <vector>

namespace ccsim::sim {

/// What a bucket of a hidden op sent (sim/schedule/OverlappedComm.hpp): its traffic, counted once per bucket of its size.
struct BucketTraffic {
  std::uint64_t events = 0;
  double inter_bytes = 0;
  double intra_bytes = 0;
  std::vector<double> link_bytes; // per tracked link
};
/// One round of context parallelism's K,V ring, as measured before the first phase (sim/step/RingAttentionOps.hpp).
struct MeasuredRound {
  double seconds = 0;
  BucketTraffic traffic;
};
/// One hidden op of one phase, as measured before the first phase.
struct HiddenOp {
  std::size_t op_index = 0;   // into the phase's ops
  BucketedOp timing;
  BucketTraffic full, tail;
};

struct StepContext {
  const Topology* topo     = nullptr;
  const Workload* workload = nullptr; // null under simulate_calls (no compute, no optimizer)
  const StepPlan* plan     = nullptr;
  StepShape shape;
  Fidelity fidelity = Fidelity::FAST;
  Platform platform;
  RankLayout layout;
  ComputeTimes compute;
  double kernel_factor = 1; // StepOptions::kernel_factor
  ComputeTimes nominal;     // compute before any straggler factor (pipelined stages apply their own GPU's)
  std::vector<double> rank_inverse_scale; // StepOptions::rank_inverse_scale
  double noise_factor = 1;                // StepOptions::noise_factor
  double lat_factor = 1;
  bool reduce_symmetric = true; // symmetric_rounds_enabled()
  // Accounting (sim/step/StepAccounting.hpp): messages and bytes sent so far, over the whole run.
  std::uint64_t events = 0;
  double inter_bytes = 0;
  double intra_bytes = 0;
  std::vector<PhaseReport> reports;
  // Recording (simulate --trace / --links): spans when record_spans, link intervals when `tracked` is not empty.
  StepTrace* trace  = nullptr;
  bool record_spans = false;
  int phase_index   = 0;
  std::vector<simgrid::s4u::Link*> tracked;
  std::vector<double> link_bytes; // bytes each tracked link carried so far (counted per flow along its route)
  std::vector<double> last_load;  // link_bytes at the last sample
  double last_sample_s = 0;
  std::map<std::pair<int, int>, std::vector<std::size_t>> routes; // (src node, dst node) -> tracked links crossed
  std::function<void(std::uint64_t)> on_progress; // StepOptions::on_progress
  std::vector<std::vector<HiddenOp>> hidden;       // per phase of the plan: its ops hidden under compute
  std::map<std::uint64_t, MeasuredRound> ring_rounds; // context parallelism's ring: a round of this many bytes
};

} // namespace ccsim::sim
