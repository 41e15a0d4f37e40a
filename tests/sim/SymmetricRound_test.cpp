// Symmetric rounds timed on half flows through the fabric port (sim/collective/SymmetricRound.hpp): the same time as every flow
// simulated (CCSIM_SYMMETRY=off), the alpha-beta closed form of an all-to-all at 1,024 GPUs in both fidelities, and
// the cases where the reduction would not be exact refused.
#include "sim/platform/Platform.hpp"
#include "sim/collective/SymmetricRound.hpp"
#include "tests/sim/SimTestSupport.hpp"

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cstdlib>

using ccsim::sim::Collective;
using ccsim::sim::Fidelity;
using ccsim::sim::GroupKind;
using namespace ccsim::test;

namespace {

/// Simulated seconds of one collective, with the reduction on (the default) or off (every flow simulated).
double timed(const ccsim::sim::Topology& topo, const ccsim::sim::StepShape& shape, Collective c, std::uint64_t bytes,
             Fidelity fidelity, bool reduce, ccsim::sim::Algo algo = ccsim::sim::Algo::AUTO)
{
  const auto out = in_child([&] {
    setenv("CCSIM_SYMMETRY", reduce ? "on" : "off", 1);
    ccsim::sim::CommOp op{"test", c, GroupKind::DATA_PARALLEL, bytes};
    op.algo = algo;
    ccsim::sim::StepPlan plan{{ccsim::sim::PhasePlan{"p", 1.0, {op}, std::nullopt}}};
    const auto r = ccsim::sim::simulate_step(topo, no_compute(), plan, shape, fidelity, false);
    return std::vector<double>{r.phases.at(0).step_time_s, r.wall_s};
  });
  REQUIRE(out.size() == 2);
  return out[0];
}

/// How many flows reduce_symmetric_round gives for the first round with inter-node flows of an all-to-all (or `c` with
/// `algo`) among all GPUs of `topo` (-1: refused).
double reduced_flows(const ccsim::sim::Topology& topo, int gpus, Fidelity fidelity, Collective c = Collective::ALL_TO_ALL,
                     ccsim::sim::Algo algo = ccsim::sim::Algo::RING, int groups = 1)
{
  const auto out = in_child([&] {
    const auto engine = engine_for(topo);
    const auto platform = ccsim::sim::build_platform(topo, gpus);
    std::vector<ccsim::sim::Group> split(static_cast<std::size_t>(groups)); // consecutive ranks, gpus / groups each
    for (int r = 0; r < gpus; ++r)
      split[static_cast<std::size_t>(r / (gpus / groups))].push_back(r);
    const auto rounds = ccsim::sim::schedule_collective(c, algo, split, std::uint64_t{1} << 24, fidelity,
                                                        topo.gpus_per_node);
    const auto first_inter = std::find_if(rounds.begin(), rounds.end(), [&](const ccsim::sim::Round& r) {
      return std::any_of(r.flows.begin(), r.flows.end(), [&](const ccsim::sim::Flow& f) {
        return f.src / topo.gpus_per_node != f.dst / topo.gpus_per_node;
      });
    });
    REQUIRE(first_inter != rounds.end());
    const auto reduced = ccsim::sim::reduce_symmetric_round(*first_inter, platform, topo);
    return std::vector<double>{reduced ? static_cast<double>(reduced->size()) : -1.0};
  });
  REQUIRE(out.size() == 1);
  return out[0];
}

} // namespace

TEST_CASE("SymmetricRound: an all-to-all takes alpha + (m-1) g S / (m B) at 1,024 GPUs, fast and exact", "[sim]")
{
  // 128 nodes of 8 GPUs, NICs of 100 Gb/s (12.5e9 B/s) and 5 us, ports of 2400 Gb/s and 1 us. Every GPU sends S/n to
  // every other: a node's NIC carries (m-1) g^2 S/n = (m-1) g S/m bytes at B after alpha = 2 x 1 us + 2 x 5 us; the
  // intra-node pieces, over the ports' 300 GB/s, end long before. Exact mode replays 1,047,552 messages in one round.
  const int g = 8, m = 128;
  const auto topo           = rdma_cluster(g, m, 100, 5, 2400, 1);
  const std::uint64_t bytes = std::uint64_t{64} << 20;
  const double expected     = 12e-6 + (m - 1.0) * g * static_cast<double>(bytes) / m / 12.5e9;
  for (auto fidelity : {Fidelity::FAST, Fidelity::EXACT}) {
    INFO((fidelity == Fidelity::FAST ? "fast" : "exact"));
    CHECK(timed(topo, dp_shape(g * m, g), Collective::ALL_TO_ALL, bytes, fidelity, true) ==
          Approx(expected).epsilon(1e-9));
  }
}

TEST_CASE("SymmetricRound: reduced all-to-alls and rings take the time of every flow simulated", "[sim]")
{
  const std::uint64_t bytes = std::uint64_t{48} << 20;
  struct Case {
    const char* name;
    ccsim::sim::Topology topo;
    int gpus;
    int tp;
  };
  auto tcp = rdma_cluster(4, 6, 40, 20, 2400, 2);
  tcp.network_model = ccsim::sim::NetworkModel::TCP; // LV08: weight-S, cross-traffic, the TCP window
  auto core = rdma_cluster(4, 6, 100, 5, 2400, 1);
  core.oversubscription = 3; // a core of 6 x 100 / 3 Gb/s joins the nodes: every node is simulated
  core.fabric_latency_s = 2e-6;
  auto tree = rdma_cluster(4, 12, 100, 5, 2400, 1);
  tree.fabric           = ccsim::sim::FabricKind::FAT_TREE; // 4 leaves of 3 nodes; one leaf is simulated
  tree.nodes_per_leaf   = 3;
  tree.oversubscription = 2;
  tree.fabric_latency_s = 1e-6;
  auto tcp_tree          = tree;
  tcp_tree.network_model = ccsim::sim::NetworkModel::TCP;
  auto open_tree             = tree;
  open_tree.oversubscription = 1; // non-blocking: the far flows share the NIC with the near ones, refused
  auto window = tcp;
  window.tcp_window_bytes = 65536; // a window that limits a flow: refused, so the same time again
  const std::vector<Case> cases = {
      {"rdma, 6 nodes of 4", rdma_cluster(4, 6, 100, 5, 2400, 1), 24, 1},
      {"rdma, 2 data-parallel groups per node (tp 2)", rdma_cluster(4, 6, 100, 5, 2400, 1), 24, 2},
      {"rdma, 2 nodes", rdma_cluster(4, 2, 100, 5, 2400, 1), 8, 1},
      {"tcp", tcp, 24, 1},
      {"oversubscribed core", core, 24, 1},
      {"tcp window limits each flow", window, 24, 1},
      {"fat-tree, 2:1", tree, 48, 1},
      {"fat-tree, 2:1, tcp", tcp_tree, 48, 1},
      {"fat-tree, 2:1, tp 2", tree, 48, 2},
      {"fat-tree, non-blocking", open_tree, 48, 1},
      {"ports slower than the NIC", rdma_cluster(4, 6, 100, 5, 56, 1), 24, 1},
  };
  // A flat ring (all-gather, ring all-reduce): every node sends one flow to the next and receives one, alike on every
  // node, so one node (one leaf) is simulated with halves for the flows that leave or enter it.
  const std::vector<std::pair<Collective, ccsim::sim::Algo>> collectives = {
      {Collective::ALL_TO_ALL, ccsim::sim::Algo::AUTO},
      {Collective::ALL_GATHER, ccsim::sim::Algo::RING},
      {Collective::ALL_REDUCE, ccsim::sim::Algo::RING},
      {Collective::ALL_REDUCE, ccsim::sim::Algo::HIERARCHICAL}};
  for (const auto& k : cases)
    for (auto fidelity : {Fidelity::FAST, Fidelity::EXACT})
      for (const auto& [c, algo] : collectives) {
        INFO(k.name << ", " << (fidelity == Fidelity::FAST ? "fast" : "exact") << ", collective " << static_cast<int>(c)
                    << ", algo " << static_cast<int>(algo));
        const auto shape  = dp_shape(k.gpus, k.topo.gpus_per_node, k.tp);
        const double full = timed(k.topo, shape, c, bytes, fidelity, false, algo);
        CHECK(timed(k.topo, shape, c, bytes, fidelity, true, algo) == Approx(full).epsilon(1e-9));
      }
}

TEST_CASE("SymmetricRound: half flows only where they stand for the real flows exactly", "[sim]")
{
  // Accepted: one node stands for all (no shared fabric link): its 12 intra-node flows plus, per sending GPU, one half
  // flow out and one in (fast: only the node's first GPU sends, so 12 + 2; exact: all 4 GPUs, 12 + 8).
  const auto star = rdma_cluster(4, 6, 100, 5, 2400, 1);
  CHECK(reduced_flows(star, 24, Fidelity::FAST) == 14);
  CHECK(reduced_flows(star, 24, Fidelity::EXACT) == 20);
  // An oversubscribed core is shared by every node: all 6 are simulated.
  auto core             = star;
  core.oversubscription = 2;
  CHECK(reduced_flows(core, 24, Fidelity::FAST) == 6 * 14);
  // A fat-tree with 2:1 leaf uplinks: one leaf of 3 nodes is simulated, the flows between its nodes real (2 per node
  // in fast mode) and the flows to the other 9 nodes as halves: h of them each way, enough for the leaf uplink (18.75
  // GB/s) to hold them before the NIC does, h >= C n / (S a (B k - C)) = 18.75 x 2 / (37.5 - 18.75) = 2, taken as 3.
  auto tree             = rdma_cluster(4, 12, 100, 5, 2400, 1);
  tree.fabric           = ccsim::sim::FabricKind::FAT_TREE;
  tree.nodes_per_leaf   = 3;
  tree.oversubscription = 2;
  CHECK(reduced_flows(tree, 48, Fidelity::FAST) == 3 * (12 + 2 + 2 * 3));
  // A ring step: node 0's 3 intra-node flows, its flow to node 1 as a half out and node 5's to it as a half in; on
  // the fat-tree, leaf 0: 3 x 3 intra-node flows, 2 flows inside the leaf, one half out of it and one into it.
  // A hierarchical all-reduce's inter-node step: the 4 rings of same-position GPUs send 4 flows from each node to the
  // next, one per GPU: node 0's 4 halves out and 4 in; on the fat-tree 2 x 4 flows inside leaf 0, 4 halves out, 4 in.
  for (auto fidelity : {Fidelity::FAST, Fidelity::EXACT}) {
    CHECK(reduced_flows(star, 24, fidelity, Collective::ALL_GATHER) == 3 + 2);
    CHECK(reduced_flows(tree, 48, fidelity, Collective::ALL_GATHER) == 9 + 2 + 2);
    CHECK(reduced_flows(star, 24, fidelity, Collective::ALL_REDUCE, ccsim::sim::Algo::HIERARCHICAL) == 4 + 4);
    CHECK(reduced_flows(tree, 48, fidelity, Collective::ALL_REDUCE, ccsim::sim::Algo::HIERARCHICAL) == 8 + 4 + 4);
  }
  // Two rings of 4 nodes on 8 (consecutive ranks): node 3's flow closes its ring to node 0, node 7's to node 4, where
  // every other node sends to the next. On a star any node is reached alike, so node 0 still stands for all: 3 + 2.
  const auto star8 = rdma_cluster(4, 8, 100, 5, 2400, 1);
  CHECK(reduced_flows(star8, 32, Fidelity::FAST, Collective::ALL_GATHER, ccsim::sim::Algo::RING, 2) == 3 + 2);
  // On a fat-tree which node is next matters (near or far): refused when the rings close at different offsets.
  auto tree8           = rdma_cluster(4, 8, 100, 5, 2400, 1);
  tree8.fabric         = ccsim::sim::FabricKind::FAT_TREE;
  tree8.nodes_per_leaf = 2;
  tree8.oversubscription = 2;
  CHECK(reduced_flows(tree8, 32, Fidelity::FAST, Collective::ALL_GATHER, ccsim::sim::Algo::RING, 2) == -1);
  // Ports slower than the NIC limit a flat ring's inter-node flows, but each such port carries its one flow and
  // nothing else (the last GPU sends out, the first receives), at both ends alike: accepted (the time is checked
  // against every flow in the test above).
  CHECK(reduced_flows(rdma_cluster(4, 6, 100, 5, 56, 1), 24, Fidelity::FAST, Collective::ALL_GATHER) == 3 + 2);
  // Refused: ports that could limit the inter-node flows, a per-flow cap, a node with its own NIC rate, a non-blocking
  // fat-tree (its far flows share the NICs with the near ones), a degraded leaf, a node that is not full.
  CHECK(reduced_flows(rdma_cluster(4, 6, 100, 5, 56, 1), 24, Fidelity::EXACT) == -1);
  auto capped                 = star;
  capped.per_flow_bytes_per_s = 1e9;
  CHECK(reduced_flows(capped, 24, Fidelity::FAST) == -1);
  auto slow_nic                     = star;
  slow_nic.nodes[2].nic_bytes_per_s = 6e9;
  CHECK(reduced_flows(slow_nic, 24, Fidelity::FAST) == -1);
  auto open_tree             = tree;
  open_tree.oversubscription = 1;
  CHECK(reduced_flows(open_tree, 48, Fidelity::FAST) == -1);
  auto degraded                 = tree;
  degraded.leaf_uplink_share[1] = 0.5;
  CHECK(reduced_flows(degraded, 48, Fidelity::FAST) == -1);
  CHECK(reduced_flows(star, 22, Fidelity::FAST) == -1);
}

TEST_CASE("SymmetricRound: NCCL's tree and NVLS-Tree rounds take the time of every flow simulated", "[sim]")
{
  // Every GPU sends inside its node and to its rail peers on other nodes in the same round; with the inter-node flows
  // halved through the fabric port, the ports still carry both kinds (the mirror links are one set per direction,
  // sim/platform/Platform.cpp build_fabric_port).
  for (const int nodes : {2, 4}) {
    auto topo                      = rdma_cluster(8, nodes, 2944, 1, 2850, 0.5);
    topo.intra_nominal_bytes_per_s = 3600e9 / 8;
    topo.nic_count                 = 8;
    topo.nic_bytes_per_s           = 368e9 / 8;
    topo.nic_nominal_bytes_per_s   = 400e9 / 8;
    topo.nccl.present              = true;
    topo.nccl.arch                 = ccsim::sim::GpuArch::HOPPER;
    topo.nccl.nvls                 = true;
    topo.nccl.nvls_bytes_per_s     = 2100e9 / 8;
    for (const auto algo : {ccsim::sim::Algo::TREE, ccsim::sim::Algo::NVLS_TREE})
      for (auto fidelity : {Fidelity::FAST, Fidelity::EXACT}) {
        INFO(nodes << " nodes, algo " << ccsim::sim::to_string(algo));
        const auto shape  = dp_shape(8 * nodes, 8);
        const double full = timed(topo, shape, Collective::ALL_REDUCE, std::uint64_t{1} << 30, fidelity, false, algo);
        CHECK(timed(topo, shape, Collective::ALL_REDUCE, std::uint64_t{1} << 30, fidelity, true, algo) ==
              Approx(full).epsilon(1e-9));
      }
  }
}

TEST_CASE("FlowRounds: collectives on disjoint sets of nodes that copy one another simulate one set - same time",
          "[sim]")
{
  // tp 8 x pp 4 x dp 4 on 16 nodes of 8 GPUs: each pipeline stage's data-parallel groups hold 4 nodes of their own
  // (rank = stage x 32 + d x 8 + t), so a round's flows fall into 4 copies on disjoint nodes (sim/step/FlowRounds.cpp,
  // one_group_of_identical); tp 2 x pp 2 x dp 8 on 4-GPU nodes likewise. Reduced == every flow simulated.
  auto rdma8 = rdma_cluster(8, 16, 100, 5);
  auto tcp4  = rdma_cluster(4, 8, 25, 20);
  tcp4.network_model    = ccsim::sim::NetworkModel::TCP;
  tcp4.fabric_latency_s = 10e-6;
  auto shape = [](int gpn, int dp, int tp, int pp) {
    auto s = dp_shape(dp * tp * pp, gpn, tp);
    s.dp = dp, s.pp = pp;
    return s;
  };
  struct Case {
    const char* name;
    const ccsim::sim::Topology* topo;
    ccsim::sim::StepShape shape;
  };
  const Case cases[] = {{"rdma, tp 8 x pp 4 x dp 4", &rdma8, shape(8, 4, 8, 4)},
                        {"tcp with a core, tp 2 x pp 2 x dp 8", &tcp4, shape(4, 8, 2, 2)}};
  for (const auto& k : cases)
    for (const auto c : {Collective::ALL_TO_ALL, Collective::ALL_REDUCE, Collective::REDUCE_SCATTER})
      for (const auto f : {Fidelity::FAST, Fidelity::EXACT}) {
        INFO(k.name << ", collective " << static_cast<int>(c) << ", exact " << (f == Fidelity::EXACT));
        const double full    = timed(*k.topo, k.shape, c, 64u << 20, f, false);
        const double reduced = timed(*k.topo, k.shape, c, 64u << 20, f, true);
        CHECK(full > (64u << 20) / 12.5e9 / 8); // the network matters
        CHECK(reduced == Approx(full).epsilon(1e-12));
      }
}
