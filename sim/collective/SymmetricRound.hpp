#pragma once
// A round whose flows are alike on every node (every leaf of a fat-tree) is timed on an equivalent, much smaller set of
// flows: one node (one leaf; every node where an oversubscribed core joins them) is simulated, its flows between its
// own nodes as they are, and its flows to the other nodes (from them) as "half" flows to (from) the fabric port. Two
// kinds of round qualify, in either fidelity: an all-to-all, whose inter-node flows join every ordered pair of nodes
// alike, and a ring step, where every node sends one inter-node flow and receives one.
//
// Why this gives the same time. In SimGrid's fluid models (CM02, LV08) a flow's rate is set by weighted max-min over
// the links of its route, its weight being its route's latency (+ weight-S / bandwidth of each link). The fabric port's
// route copies the far half of a real route (same latencies, same bandwidths, as links that are never shared), so a
// half flow has the weight, latency, TCP-window bound and bandwidth bound of the flows it stands for. By symmetry every
// real far flow of a round has one rate, set only by links that all of them cross alike (NICs, the core, leaf
// uplinks), and those links carry the same bytes in the reduced round. The reduction is taken only where that holds:
//   - a symmetric cluster (identical nodes, no per-flow cap, full nodes, full and undegraded leaves);
//   - no GPU port and no TCP window can limit an inter-node flow, in the real round or the reduced one (checked with
//     the weights above and each flow's demand), but for a ring step's port that carries its one inter-node flow and
//     nothing else (a flat ring's last GPU of a node): the half keeps the far end's port as a never-shared copy, and
//     that port is alone too, so the real flow and its halves meet the same port rate;
//   - on a star a ring step's nodes may form any permutation (rings closing at different nodes, one per pipeline
//     stage): every other node is reached through the same kind of route; on a fat-tree the next node is the same
//     offset from every node, since near and far differ;
//   - a ring step's halves stand for one real flow each, alone on its NICs and leaf uplinks, and both ends of it look
//     alike (the flow into its sender and out of its receiver are of one kind), since with cross-traffic a NIC also
//     carries 5 % of the reverse flow;
//   - an all-to-all's halves stand for several real flows each, and SimGrid cannot weight one flow as several: every
//     half then stands for the same number of real flows of one size, and on a fat-tree the far flows must be held by
//     the oversubscribed leaf uplink rather than by the NIC they share with the near (same-leaf) flows, which stay real
//     and take what the NIC leaves them; each GPU then sends h parallel halves, enough to weigh at the NIC what they
//     stand for (h >= C n / (S a (B k - C)), SymmetricRound.cpp). A non-blocking fat-tree is simulated flow by flow.
// tests/sim/SymmetricRound_test.cpp holds reduced == full on stars and fat-trees, rdma and tcp, both fidelities, tp 2,
// an oversubscribed core, all-to-all, ring and hierarchical collectives, and checks that the cases above are refused.

#include "sim/collective/Collectives.hpp"
#include "sim/platform/Platform.hpp"
#include "sim/platform/Topology.hpp"

#include <optional>
#include <vector>

namespace ccsim::sim {

/// A flow endpoint that is not a GPU: the platform's fabric port (Platform::fabric_port).
inline constexpr int kFabricPort = -1;

/// Whether rounds are reduced at all (and pipelines to one group of chains, sim/layout/PipelineGroups.hpp): yes unless the
/// environment says CCSIM_SYMMETRY=off (every flow and chain simulated, to check the reductions or to time the full
/// step; cli/main.cpp rejects any other value).
bool symmetric_rounds_enabled();

/// The flows to simulate in place of `round`, or nothing when the round is not symmetric or the reduction would not be
/// exact. Call from inside a running simulation (it reads the platform's routes and the network model's settings).
std::optional<std::vector<Flow>> reduce_symmetric_round(const Round& round, const Platform& platform,
                                                        const Topology& topo);

} // namespace ccsim::sim
