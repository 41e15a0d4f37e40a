// Pipelines simulated one group of chains for all (sim/layout/PipelineGroups.hpp): the groups found by hand on small layouts,
// the refusals, and the same step (time, per-message times, bytes, events, link loads) as the whole pipeline simulated
// (CCSIM_SYMMETRY=off) on rdma and tcp switches and 2:1 fat-trees, with and without a core, tp 1 and 2, one and several
// micro-batches.
#include "sim/layout/PipelineGroups.hpp"
#include "tests/sim/SimTestSupport.hpp"

#include <cstdlib>

using namespace ccsim::test;
using ccsim::sim::RankLayout;
using ccsim::sim::representative_chains;

TEST_CASE("PipelineGroups: chains on the same nodes form a group, and its copies on other nodes are left out", "[sim]")
{
  // 2 GPUs per node, pp 2, dp 4 (rank = stage x 4 + d): chains {0,4} {1,5} use nodes 0 and 2, {2,6} {3,7} nodes 1
  // and 3. Two groups of one shape: the first is simulated.
  const auto chains = ccsim::sim::pipeline_chains(RankLayout{4, 1, 2, 2});
  REQUIRE(chains == std::vector<std::vector<int>>{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
  CHECK(representative_chains(chains, 2) == std::vector<std::size_t>{0, 1});
  // A pipeline inside each node: {0,1} on node 0, {2,3} on node 1.
  CHECK(representative_chains({{0, 1}, {2, 3}}, 2) == std::vector<std::size_t>{0});
  // tp 2 on 4-GPU nodes, pp 2, dp 4: 16 GPUs, chains (d, t) -> {2d + t, 8 + 2d + t}; nodes {0,2} for d = 0, 1 and
  // {1,3} for d = 2, 3.
  CHECK(representative_chains(ccsim::sim::pipeline_chains(RankLayout{4, 2, 2, 4}), 4) ==
        std::vector<std::size_t>{0, 1, 2, 3});
}

TEST_CASE("PipelineGroups: groups that share a node, or differ in shape, are all simulated", "[sim]")
{
  const std::vector<std::size_t> both{0, 1};
  CHECK(representative_chains({{0, 2}, {1, 4}}, 2) == both);        // node 0 in both groups
  CHECK(representative_chains({{0, 2}, {5, 6}}, 2) == both);        // local GPUs 0,0 against 1,0
  CHECK(representative_chains({{0, 2}, {4, 5}}, 2) == both);        // across nodes against inside one
  CHECK(representative_chains({{0, 2}, {1, 3}, {4, 6}}, 2) == std::vector<std::size_t>{0, 1, 2}); // 2 chains vs 1
  CHECK(representative_chains({{0, 2}}, 2) == std::vector<std::size_t>{0});
}

TEST_CASE("PipelineGroups: a domain is a node on a switch or WAN, a leaf on a fat-tree, and none where they meet",
          "[sim]")
{
  auto topo = rdma_cluster(8, 4, 100, 5);
  CHECK(ccsim::sim::pipeline_domain_nodes(topo) == 1);
  topo.fabric_latency_s = 1e-6; // a core of nodes x uplink: cannot limit
  CHECK(ccsim::sim::pipeline_domain_nodes(topo) == 1);
  auto wan   = topo;
  wan.fabric = ccsim::sim::FabricKind::WAN;
  CHECK(ccsim::sim::pipeline_domain_nodes(wan) == 1);
  auto over             = topo;
  over.oversubscription = 2;
  CHECK(ccsim::sim::pipeline_domain_nodes(over) == 0);
  auto tree             = over;
  tree.fabric           = ccsim::sim::FabricKind::FAT_TREE;
  tree.nodes_per_leaf   = 2;
  CHECK(ccsim::sim::pipeline_domain_nodes(tree) == 2);
  auto degraded = tree;
  degraded.leaf_uplink_share[1] = 0.5;
  CHECK(ccsim::sim::pipeline_domain_nodes(degraded) == 0);
  auto own = topo;
  own.nodes[1].nic_bytes_per_s = 1e9;
  CHECK(ccsim::sim::pipeline_domain_nodes(own) == 0);
  // Leaves of 2 nodes x 2 GPUs, pp 2, dp 8: chain d runs from node d/2 (leaf d/4) to node 4 + d/2 (leaf 2 + d/4), so
  // chains 0-3 hold leaves 0 and 2, chains 4-7 leaves 1 and 3.
  const auto chains = ccsim::sim::pipeline_chains(RankLayout{8, 1, 2, 2});
  CHECK(representative_chains(chains, 2, 2) == std::vector<std::size_t>{0, 1, 2, 3});
  CHECK(representative_chains(chains, 2, 1) == std::vector<std::size_t>{0, 1});
  // Leaves of 4 nodes: chain 0-3's nodes 0, 1 and 4, 5 share leaves 0 and 1 with chains 4-7's nodes 2, 3, 6, 7.
  CHECK(representative_chains(chains, 2, 4) == std::vector<std::size_t>{0, 1, 2, 3, 4, 5, 6, 7});
}


TEST_CASE("PipelineGroups: one group simulated gives the whole pipeline's step, message times, bytes and links",
          "[sim]")
{
  auto rdma = rdma_cluster(4, 8, 100, 5);
  auto tcp  = rdma;
  tcp.network_model    = ccsim::sim::NetworkModel::TCP;
  tcp.fabric_latency_s = 20e-6; // a core, crossed up and down
  auto one_gpu = rdma_cluster(1, 8, 10, 50);
  auto tree    = rdma_cluster(2, 8, 100, 5); // leaves of 2 nodes behind 2:1 uplinks
  tree.fabric           = ccsim::sim::FabricKind::FAT_TREE;
  tree.nodes_per_leaf   = 2;
  tree.oversubscription = 2;
  tree.fabric_latency_s = 2e-6;
  auto tcp_tree          = tree;
  tcp_tree.network_model = ccsim::sim::NetworkModel::TCP;
  auto tree4          = tree; // 4 GPUs per node
  tree4.gpus_per_node = 4;
  struct Case {
    const char* name;
    const ccsim::sim::Topology* topo;
    int dp, tp, pp, m;
  };
  const Case cases[] = {{"rdma, 4 GPUs/node, pp 2, dp 16", &rdma, 16, 1, 2, 4},
                        {"rdma, tp 2, pp 4, dp 4", &rdma, 4, 2, 4, 3},
                        {"tcp with a core, pp 2, dp 16, m 1", &tcp, 16, 1, 2, 1},
                        {"tcp with a core, pp 4, dp 8", &tcp, 8, 1, 4, 4},
                        {"one GPU per node, pp 2, dp 4", &one_gpu, 4, 1, 2, 4},
                        {"fat-tree 2:1, pp 2, dp 8 (chains across leaves)", &tree, 8, 1, 2, 4},
                        {"fat-tree 2:1, 4 GPUs per node, tp 2, pp 2, dp 8", &tree4, 8, 2, 2, 3},
                        {"tcp fat-tree 2:1, pp 2, dp 8", &tcp_tree, 8, 1, 2, 2}};
  for (const auto& k : cases) {
    INFO(k.name);
    const auto chains = ccsim::sim::pipeline_chains(RankLayout{k.dp, k.tp, k.pp, k.topo->gpus_per_node});
    const int domain  = ccsim::sim::pipeline_domain_nodes(*k.topo);
    REQUIRE(representative_chains(chains, k.topo->gpus_per_node, domain).size() < chains.size()); // it applies
    const auto full    = pipeline_step(*k.topo, k.dp, k.tp, k.pp, k.m, false);
    const auto reduced = pipeline_step(*k.topo, k.dp, k.tp, k.pp, k.m, true);
    REQUIRE(full.size() == reduced.size());
    CHECK(full[1] >= 6e6 / 12.5e9); // a forward message takes at least 6 MB at 100 Gb/s: the network matters
    for (std::size_t i = 0; i < full.size(); ++i) {
      INFO("value " << i);
      CHECK(reduced[i] == Approx(full[i]).epsilon(1e-12));
    }
  }
}

TEST_CASE("PipelineGroups: behind an oversubscribed core the groups meet, so the pipeline is simulated whole",
          "[sim]")
{
  // Why the refusal matters. pp 2 on 4-GPU nodes, dp 16: chain d runs from node d/4 to node 4 + d/4, so each NIC
  // carries 4 chains' forward messages of 6 MB at once. Alone (a core of 8 x 12.5 GB/s, which cannot limit) a message
  // takes alpha + 4 x 6 MB / 12.5 GB/s = 1.932 ms, alpha = 2 x 0.5 us (ports) + 2 x 5 us (NICs) + 2 x 0.5 us (core).
  // Behind a 4:1 core (25 GB/s for all 16 chains) it takes alpha + 16 x 6 MB / 25 GB/s = 3.852 ms: the groups meet
  // there, and ccsim gives that answer with the reduction on and off.
  auto open = rdma_cluster(4, 8, 100, 5);
  open.fabric_latency_s = 1e-6;
  auto over             = open;
  over.oversubscription = 4;
  const double alpha = 12e-6;
  const auto alone   = pipeline_step(open, 16, 1, 2, 4, true);
  const auto on      = pipeline_step(over, 16, 1, 2, 4, true);
  const auto off     = pipeline_step(over, 16, 1, 2, 4, false);
  CHECK(alone[1] == Approx(alpha + 4 * 6e6 / 12.5e9).epsilon(1e-3));
  CHECK(on[1] == Approx(alpha + 16 * 6e6 / 25e9).epsilon(1e-3));
  CHECK(on == off);
}

TEST_CASE("Pipeline lanes: the tp chains of a replica driven by one set of actors give the whole pipeline's step",
          "[sim]")
{
  // dp 1: a single group, so only the lanes reduce (sim/schedule/PipelineSchedule.cpp): tp 8 on 8-GPU nodes (a Megatron
  // 70B's tp 8 x pp 4), tp 4 on 8-GPU nodes (two lanes' worth of blocks per node), tcp with a core, a 2:1 fat-tree.
  auto rdma8 = rdma_cluster(8, 4, 100, 5);
  auto tcp8  = rdma8;
  tcp8.network_model    = ccsim::sim::NetworkModel::TCP;
  tcp8.fabric_latency_s = 20e-6;
  auto tree8 = rdma_cluster(8, 4, 100, 5);
  tree8.fabric           = ccsim::sim::FabricKind::FAT_TREE;
  tree8.nodes_per_leaf   = 2;
  tree8.oversubscription = 2;
  struct Case {
    const char* name;
    const ccsim::sim::Topology* topo;
    int dp, tp, pp, m;
  };
  const Case cases[] = {{"rdma, tp 8, pp 4, dp 1", &rdma8, 1, 8, 4, 6},
                        {"rdma, tp 4, pp 4, dp 2", &rdma8, 2, 4, 4, 3},
                        {"tcp with a core, tp 8, pp 2, dp 2", &tcp8, 2, 8, 2, 4},
                        {"fat-tree 2:1, tp 8, pp 4, dp 1", &tree8, 1, 8, 4, 3}};
  for (const auto& k : cases) {
    INFO(k.name);
    const auto full    = pipeline_step(*k.topo, k.dp, k.tp, k.pp, k.m, false);
    const auto reduced = pipeline_step(*k.topo, k.dp, k.tp, k.pp, k.m, true);
    REQUIRE(full.size() == reduced.size());
    CHECK(full[1] >= 6e6 / 12.5e9); // the network matters
    for (std::size_t i = 0; i < full.size(); ++i) {
      INFO("value " << i);
      CHECK(reduced[i] == Approx(full[i]).epsilon(1e-12));
    }
  }
}
