#pragma once
// The unit every collective schedule produces and the step engine simulates: rounds of point-to-point flows between
// global ranks. ccsim's own schedules (sim/collective/Collectives.hpp) and NCCL's (sim/nccl/NcclFlows.hpp) both build
// them; nothing here knows how a collective is scheduled.

#include <cstdint>
#include <vector>

namespace ccsim::sim {

enum class Fidelity { EXACT, FAST };

using Group = std::vector<int>; // global ranks, in ring order

struct Flow {
  int src;
  int dst;
  std::uint64_t bytes;
};

struct Round {
  std::vector<Flow> flows;
  int extra_latency_terms = 0; // latency terms owed analytically (collapsed rounds), each = the round's max hop latency
  /// The round's latency when the collective's model states it (NCCL's per-hop latencies, pipeline fill): the flows
  /// pay their route's latency, and the rest, latency_s minus the round's largest hop latency, is waited after them.
  /// Negative: the flows' own latency (and extra_latency_terms) is all.
  double latency_s = -1;
  /// The round lasts at least this long after its latency (the protocol kernels' GPU-side ceilings, the NICs the
  /// channels reach); 0: no floor. Its flows are not slowed themselves: SimGrid 3.32 ignores Comm::set_rate on
  /// host-to-host comms, so under contention they take their share of the links sooner than NCCL's kernels would.
  double floor_s = 0;
};

} // namespace ccsim::sim
