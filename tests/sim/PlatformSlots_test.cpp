// A platform of node slots (sim/platform/Platform.hpp): only the nodes a step touches are built, handed out as they are
// first asked for. The same step time as on every node, a step that touches more nodes than were built refused
// (OutOfNodeSlots), and the cases where a node's place or rates matter, or where every step touches every node, never
// slotted.
#include "sim/platform/Platform.hpp"
#include "tests/sim/SimTestSupport.hpp"

#include <simgrid/s4u.hpp>

#include <cstdlib>
#include <set>

using ccsim::sim::Collective;
using ccsim::sim::Fidelity;
using ccsim::sim::GroupKind;
using namespace ccsim::test;

namespace {

/// tp x pp x dp on `gpn`-GPU nodes: each pipeline stage's data-parallel rings hold nodes of their own.
ccsim::sim::StepShape layout(int gpn, int dp, int tp, int pp)
{
  auto s = dp_shape(dp * tp * pp, gpn, tp);
  s.dp   = dp;
  s.pp   = pp;
  return s;
}

/// Simulated seconds of a data-parallel all-reduce and all-to-all of `bytes` on `node_slots` nodes (0: every node);
/// -1 when the step touched more nodes than were built.
double step_seconds(const ccsim::sim::Topology& topo, const ccsim::sim::StepShape& shape, int node_slots)
{
  const auto out = in_child([&] {
    const std::uint64_t bytes = std::uint64_t{32} << 20;
    ccsim::sim::StepPlan plan{{ccsim::sim::PhasePlan{
        "p", 1.0,
        {ccsim::sim::CommOp{"ar", Collective::ALL_REDUCE, GroupKind::DATA_PARALLEL, bytes},
         ccsim::sim::CommOp{"a2a", Collective::ALL_TO_ALL, GroupKind::DATA_PARALLEL, bytes}},
        std::nullopt}}};
    ccsim::sim::StepOptions options;
    options.node_slots = node_slots;
    try {
      return std::vector<double>{
          ccsim::sim::simulate_step(topo, no_compute(), plan, shape, Fidelity::FAST, options).phases.at(0).step_time_s};
    } catch (const ccsim::sim::OutOfNodeSlots&) {
      return std::vector<double>{-1};
    }
  });
  REQUIRE(out.size() == 1);
  return out[0];
}

} // namespace

TEST_CASE("PlatformSlots: nodes get slots in the order they are first touched, and run out", "[sim]")
{
  const auto topo = rdma_cluster(4, 64, 100, 5);
  const auto out  = in_child([&] {
    const auto engine = engine_for(topo);
    const auto p = ccsim::sim::build_platform(topo, 256, 3);
    std::vector<double> v{static_cast<double>(p.built.size()), static_cast<double>(p.gpu_count())};
    // Node 40 takes slot 0, node 7 slot 1: each node's GPUs are one slot's, in order; a second ask changes nothing.
    v.push_back(p.gpu(161) == p.built[1] ? 1 : 0);
    v.push_back(p.gpu(160) == p.built[0] && p.gpu(163) == p.built[3] ? 1 : 0);
    v.push_back(p.gpu(28) == p.built[4] && p.gpu(161) == p.built[1] ? 1 : 0);
    v.push_back(p.slots_used);
    // A route between two slots crosses what a route between the two nodes would: port, NIC, NIC, port.
    std::vector<simgrid::s4u::Link*> links;
    double latency = 0;
    p.gpu(161)->route_to(p.gpu(28), links, &latency);
    v.push_back(static_cast<double>(links.size()));
    v.push_back(latency);
    (void)p.gpu(0); // slot 2
    v.push_back(p.out_of_slots ? 1 : 0);
    (void)p.gpu(255); // a fourth node: none left
    v.push_back(p.out_of_slots ? 1 : 0);
    return v;
  });
  REQUIRE(out.size() == 10);
  CHECK(out[0] == 12);  // 3 nodes x 4 GPUs built
  CHECK(out[1] == 256); // for 256 GPUs
  CHECK(out[2] == 1);
  CHECK(out[3] == 1);
  CHECK(out[4] == 1);
  CHECK(out[5] == 2);
  CHECK(out[6] == 4);
  CHECK(out[7] == Approx(2 * 0.5e-6 + 2 * 5e-6).epsilon(1e-12)); // two ports of 0.5 us, two NIC halves of 5 us
  CHECK(out[8] == 0);
  CHECK(out[9] == 1);

  // On a fat-tree a slot is a leaf: node 9 (leaf 2, place 1) takes leaf slot 0 and keeps place 1 there; node 6 (leaf 1,
  // place 2) takes leaf slot 1; node 10 shares node 9's leaf, so its slot.
  auto tree           = topo;
  tree.fabric         = ccsim::sim::FabricKind::FAT_TREE;
  tree.nodes_per_leaf = 4;
  tree.oversubscription = 2;
  const auto leaves   = in_child([&] {
    const auto engine = engine_for(tree);
    const auto p      = ccsim::sim::build_platform(tree, 256, 8); // 2 leaves of 4 nodes
    std::vector<double> v{static_cast<double>(p.built.size()), static_cast<double>(p.slots)};
    v.push_back(p.gpu(9 * 4 + 3) == p.built[(0 * 4 + 1) * 4 + 3] ? 1.0 : 0.0);
    v.push_back(p.gpu(6 * 4 + 0) == p.built[(1 * 4 + 2) * 4 + 0] ? 1.0 : 0.0);
    v.push_back(p.gpu(10 * 4 + 2) == p.built[(0 * 4 + 2) * 4 + 2] ? 1.0 : 0.0);
    v.push_back(p.slots_used);
    v.push_back(p.out_of_slots ? 1.0 : 0.0);
    (void)p.gpu(0);
    v.push_back(p.out_of_slots ? 1.0 : 0.0);
    return v;
  });
  REQUIRE(leaves.size() == 8);
  CHECK(leaves[0] == 32); // 8 nodes x 4 GPUs
  CHECK(leaves[1] == 2);  // slots are leaves
  CHECK(leaves[2] == 1);
  CHECK(leaves[3] == 1);
  CHECK(leaves[4] == 1);
  CHECK(leaves[5] == 2);
  CHECK(leaves[6] == 0);
  CHECK(leaves[7] == 1); // node 0's leaf is a third
}

TEST_CASE("PlatformSlots: a step on node slots takes the time of the step on every node", "[sim]")
{
  // 32 nodes of 4 GPUs. tp 4 x pp 4 x dp 8: each stage's rings join 8 nodes of their own; a ring round is simulated
  // on one node, an all-to-all on one group of 8 nodes, so 12 slots do. With a fabric latency, every route also
  // crosses a core link (not oversubscribed, so never full).
  auto star = rdma_cluster(4, 32, 100, 5);
  auto core = star;
  core.fabric_latency_s = 2e-6;
  auto tcp          = star;
  tcp.network_model = ccsim::sim::NetworkModel::TCP;
  // A 2:1 fat-tree of 8 leaves of 4 nodes: slots are whole leaves (12 nodes = 3 leaves); a stage's 8 nodes are 2 leaves.
  auto tree             = star;
  tree.fabric           = ccsim::sim::FabricKind::FAT_TREE;
  tree.nodes_per_leaf   = 4;
  tree.oversubscription = 2;
  tree.fabric_latency_s = 1e-6;
  for (const auto* topo : {&star, &core, &tcp, &tree}) {
    const auto shape   = layout(4, 8, 4, 4);
    const double every = step_seconds(*topo, shape, 0);
    REQUIRE(every > 0);
    CHECK(step_seconds(*topo, shape, 12) == every); // bit for bit: the same links, latencies and flows
  }
  // Data parallelism over every node with a per-flow cap (no round reduced): the step touches all 32 nodes, more
  // than 12 slots hold; with 32 slots, every node is built.
  auto capped                 = star;
  capped.per_flow_bytes_per_s = 5e9;
  CHECK(step_seconds(capped, dp_shape(128, 4), 12) == -1);
  CHECK(step_seconds(capped, dp_shape(128, 4), 32) == step_seconds(capped, dp_shape(128, 4), 0));
}

TEST_CASE("PlatformSlots: slotted only where a route does not depend on which nodes it joins", "[sim]")
{
  using ccsim::sim::kNodeSlots;
  using ccsim::sim::platform_node_slots;
  unsetenv("CCSIM_PLATFORM_NODES");
  const int nodes = kNodeSlots + 1;
  auto star       = rdma_cluster(8, 4 * kNodeSlots, 100, 5);
  CHECK(platform_node_slots(star, 8 * nodes) == kNodeSlots);
  CHECK(platform_node_slots(star, 8 * kNodeSlots) == 0);   // no more nodes than slots: every node
  CHECK(platform_node_slots(star, 8 * nodes - 3) == 0);    // a node not full
  auto tree           = star;
  tree.fabric         = ccsim::sim::FabricKind::FAT_TREE; // slots are whole leaves: near and far stay so
  tree.nodes_per_leaf = 24;
  tree.oversubscription = 2; // each leaf's own uplink: not a core that joins every node
  CHECK(platform_node_slots(tree, 8 * 24 * 20) == kNodeSlots / 24 * 24);
  CHECK(platform_node_slots(tree, 8 * (24 * 20 + 1)) == 0); // a leaf not full
  auto degraded                 = tree;
  degraded.leaf_uplink_share[3] = 0.5; // one leaf unlike the others
  CHECK(platform_node_slots(degraded, 8 * 24 * 20) == 0);
  auto oversubscribed             = star;
  oversubscribed.oversubscription = 2; // a core that joins every node's flows: every step touches all nodes
  CHECK(platform_node_slots(oversubscribed, 8 * nodes) == 0);
  auto own                     = star;
  own.nodes[5].nic_bytes_per_s = 1e9; // one node unlike the others
  CHECK(platform_node_slots(own, 8 * nodes) == 0);
  setenv("CCSIM_PLATFORM_NODES", "all", 1);
  CHECK(platform_node_slots(star, 8 * nodes) == 0);
  setenv("CCSIM_PLATFORM_NODES", "4", 1);
  CHECK(platform_node_slots(star, 8 * 5) == 4);
  CHECK(platform_node_slots(star, 8 * 4) == 0);
  CHECK(platform_node_slots(tree, 8 * 24 * 20) == 24); // at least one leaf
  unsetenv("CCSIM_PLATFORM_NODES");
}
