#pragma once
// Collectives as schedules of rounds of flows, one implementation each, reused by every algorithm.
// The caller says *what* (all-reduce S bytes on these groups); the schedule says *how* (which flows, in
// which rounds); the network only sees flows. All groups of a call run at once, so they contend.
//
// Fidelity::EXACT simulates every round as real messages (2(n-1) rounds for a ring all-reduce).
// Fidelity::FAST collapses a ring into one round of bulk flows (each carrying all of its rounds' bytes)
// and adds the missing (rounds-1) latency terms analytically: the bandwidth term and the contention stay
// simulated, and the message count drops from O(n^2) to O(n) (docs/design/notes/simgrid.md §4, "bulk").

#include "sim/layout/Round.hpp"
#include "sim/model/CommPlan.hpp"

#include <cstdint>
#include <vector>

namespace ccsim::sim {

struct Topology;

/// Rounds of one collective on every group at once, as the topology runs it: NCCL's algorithms and protocols where it
/// has an "nccl" block (sim/nccl/NcclModel.hpp chooses, sim/nccl/NcclFlows.hpp builds the flows), ccsim's own otherwise.
/// `bytes` per rank as defined in CommPlan.hpp; `merge` as below.
std::vector<Round> schedule_collective(Collective collective, Algo algo, const std::vector<Group>& groups,
                                       std::uint64_t bytes, Fidelity fidelity, const Topology& topo,
                                       bool merge = false);

/// ccsim's own collectives (ring, hierarchical, all-to-all), whatever the topology says. `bytes` per rank as defined
/// in CommPlan.hpp.
/// `gpus_per_node` lets hierarchical algorithms and the fast all-to-all see node boundaries.
/// `merge` (FAST only): the rounds come out as merge_node_pairs would leave them, merged group by group as they are
/// scheduled, so that a large all-to-all never holds every group's flows unmerged at once.
std::vector<Round> schedule_collective(Collective collective, Algo algo, const std::vector<Group>& groups,
                                       std::uint64_t bytes, Fidelity fidelity, int gpus_per_node, bool merge = false);

/// FAST fidelity's last aggregation: in each round, the inter-node flows that join the same two nodes become one flow
/// (bytes summed, between the GPUs of the first such flow). They all cross the same two NICs, so the NICs and the
/// fabric carry the same bytes; only valid where no link but the NICs and fabric can limit them: no per-flow cap (a
/// cap applies per flow) and GPU ports at least as fast as the node's uplink. A 1,024-GPU SDP4Bit step sends 8 flows
/// per node pair in its inter-node all-to-all (one per GPU position): 130,048 flows become 16,256.
void merge_node_pairs(std::vector<Round>& rounds, int gpus_per_node);

/// AUTO resolved: hierarchical for an all-reduce on groups spanning several nodes with several ranks per node
/// (NCCL-like), ring otherwise.
Algo resolve_algo(Collective collective, Algo algo, const Group& group, int gpus_per_node);

/// Rounds a ring of n ranks needs: all-reduce 2(n-1), reduce-scatter and all-gather n-1.
int ring_rounds(Collective collective, int n);

} // namespace ccsim::sim
