#pragma once
// A round whose inter-node flows join every ordered pair of nodes alike (an all-to-all, in either fidelity) is timed
// on an equivalent, much smaller set of flows: each GPU's flows to the other nodes become one flow to the fabric, and
// its flows from them one flow from it (two "half" flows), and where no fabric link is shared by the nodes, one node
// stands for all.
//
// Why this gives the same time. In SimGrid's fluid models (CM02, LV08) a flow's rate is set by weighted max-min over
// the links of its route, its weight being its route's latency (+ weight-S / bandwidth of each link). A symmetric
// round's inter-node flows all have one route shape, so one weight and one rate, and they are limited only by the
// links every inter-node flow crosses in the same numbers (the NICs, the core). The fabric port's route copies the
// missing half of a real route (same latencies, same bandwidths, as links that are never shared), so a half flow has
// the weight, latency, TCP-window bound and bandwidth bound of the flows it stands for, and every shared link carries
// the same bytes from the same number of half flows per GPU. Half flows are taken only where that holds:
//   - a symmetric cluster (star fabric, identical nodes, no per-flow cap) and every node in the round alike;
//   - every half flow stands for the same number of real flows of one size (SimGrid cannot weight a flow by the number
//     of flows it carries, so halves of different multiplicity would share a NIC unfairly): true of an all-to-all;
//   - no GPU port or TCP window can limit an inter-node flow, in the real round or the reduced one (checked with the
//     weights above), so only the NICs and the core do.
// A fat-tree's intra-leaf and inter-leaf flows would need halves of different multiplicity on one NIC, so fat-trees
// are simulated flow by flow. tests/sim/SymmetricRound_test.cpp holds reduced == full on stars of both network models,
// both fidelities, tp > 1 and an oversubscribed core, and checks that the cases above are refused.

#include "sim/Collectives.hpp"
#include "sim/Platform.hpp"
#include "sim/Topology.hpp"

#include <optional>
#include <vector>

namespace ccsim::sim {

/// A flow endpoint that is not a GPU: the platform's fabric port (Platform::fabric_port).
inline constexpr int kFabricPort = -1;

/// Whether rounds are reduced at all: yes unless the environment says CCSIM_SYMMETRY=off (every flow simulated, to
/// check the reduction or to time the full round; cli/main.cpp rejects any other value).
bool symmetric_rounds_enabled();

/// The flows to simulate in place of `round`, or nothing when the round is not symmetric or the reduction would not be
/// exact. Call from inside a running simulation (it reads the platform's routes and the network model's settings).
std::optional<std::vector<Flow>> reduce_symmetric_round(const Round& round, const Platform& platform,
                                                        const Topology& topo);

} // namespace ccsim::sim
