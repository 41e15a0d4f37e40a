// Every collective in exact mode on an alpha-beta (rdma) cluster against its closed form (nccl-tests
// doc/PERFORMANCE.md), and fast mode against exact.
#include "tests/sim/SimTestSupport.hpp"

using ccsim::sim::Algo;
using ccsim::sim::Collective;
using ccsim::sim::Fidelity;
using namespace ccsim::test;

namespace {
// One GPU per node: a message between ranks crosses port, NIC, NIC, port.
// alpha = 2 x 0.5 us (ports) + 2 x 5 us (NICs) = 11 us; B = 100 Gb/s = 12.5e9 B/s (ports are 10 Tb/s).
constexpr double ALPHA = 11e-6;
constexpr double B     = 12.5e9;
} // namespace

TEST_CASE("RingAllReduce: exact mode equals 2(n-1)(alpha + S/(nB)) for n = 2..256", "[sim]")
{
  for (int n : {2, 3, 8, 64, 256}) {
    const std::uint64_t bytes = 64ull << 20; // 64 MiB
    const auto topo = rdma_cluster(1, n, 100, 5);
    const double t  = time_collective(topo, dp_shape(n, 1), Collective::ALL_REDUCE, bytes, Fidelity::EXACT, Algo::RING);
    const double chunk    = static_cast<double>((bytes + n - 1) / n);
    const double expected = 2.0 * (n - 1) * (ALPHA + chunk / B);
    INFO("n = " << n);
    CHECK(t == Approx(expected).epsilon(1e-6));
  }
}

TEST_CASE("ReduceScatter and AllGather: exact mode equals (n-1)(alpha + S/(nB))", "[sim]")
{
  const int n = 16;
  const std::uint64_t bytes = 16ull << 20;
  const auto topo = rdma_cluster(1, n, 100, 5);
  const double expected = (n - 1) * (ALPHA + static_cast<double>(bytes / n) / B);
  CHECK(time_collective(topo, dp_shape(n, 1), Collective::REDUCE_SCATTER, bytes, Fidelity::EXACT) ==
        Approx(expected).epsilon(1e-6));
  CHECK(time_collective(topo, dp_shape(n, 1), Collective::ALL_GATHER, bytes, Fidelity::EXACT) ==
        Approx(expected).epsilon(1e-6));
}

TEST_CASE("AllToAll: every rank's n-1 pieces share its NIC: alpha + (n-1)(S/n)/B", "[sim]")
{
  const int n = 32;
  const std::uint64_t bytes = 32ull << 20;
  const auto topo = rdma_cluster(1, n, 100, 5);
  const double expected = ALPHA + (n - 1) * static_cast<double>(bytes / n) / B;
  CHECK(time_collective(topo, dp_shape(n, 1), Collective::ALL_TO_ALL, bytes, Fidelity::EXACT) ==
        Approx(expected).epsilon(1e-6));
  // Fast mode aggregates node pairs; with one GPU per node that changes nothing.
  CHECK(time_collective(topo, dp_shape(n, 1), Collective::ALL_TO_ALL, bytes, Fidelity::FAST) ==
        Approx(expected).epsilon(1e-6));
}

TEST_CASE("HierarchicalAllReduce: intra reduce-scatter + inter ring per shard + intra all-gather", "[sim]")
{
  // g = 4 GPUs per node on 400 Gb/s ports (1 us), m = 8 nodes on 100 Gb/s NICs (5 us).
  const int g = 4, m = 8;
  const std::uint64_t bytes = 64ull << 20;
  const auto topo = rdma_cluster(g, m, 100, 5, 400, 1);
  const double a_in = 2e-6, b_in = 50e9;       // port + port
  const double a_out = 2e-6 + 10e-6, b_nic = B; // ports + NICs; g rings share each NIC
  const double shard = static_cast<double>(bytes / g);
  const double intra = (g - 1) * (a_in + shard / b_in);
  const double inter = 2.0 * (m - 1) * (a_out + (shard / m) / (b_nic / g));
  const double t = time_collective(topo, dp_shape(g * m, g), Collective::ALL_REDUCE, bytes, Fidelity::EXACT,
                                   Algo::HIERARCHICAL);
  CHECK(t == Approx(2 * intra + inter).epsilon(1e-6));
}

TEST_CASE("Fidelity: fast agrees with exact within 3% where exact is affordable", "[sim]")
{
  const auto flat = rdma_cluster(1, 64, 100, 5);
  for (std::uint64_t bytes : {1ull << 20, 256ull << 20}) {
    const double exact = time_collective(flat, dp_shape(64, 1), Collective::ALL_REDUCE, bytes, Fidelity::EXACT);
    const double fast  = time_collective(flat, dp_shape(64, 1), Collective::ALL_REDUCE, bytes, Fidelity::FAST);
    CHECK(fast == Approx(exact).epsilon(0.03));
  }
  const auto nodes = rdma_cluster(8, 16, 100, 5, 2400, 1);
  const double exact = time_collective(nodes, dp_shape(128, 8), Collective::ALL_REDUCE, 680ull << 20, Fidelity::EXACT);
  const double fast  = time_collective(nodes, dp_shape(128, 8), Collective::ALL_REDUCE, 680ull << 20, Fidelity::FAST);
  CHECK(fast == Approx(exact).epsilon(0.03));
}

TEST_CASE("Bandwidth: halving it doubles the bandwidth term and leaves the latency term", "[sim]")
{
  const int n = 16;
  const std::uint64_t bytes = 128ull << 20;
  const double t_full = time_collective(rdma_cluster(1, n, 100, 5), dp_shape(n, 1), Collective::ALL_REDUCE, bytes, Fidelity::EXACT);
  const double t_half = time_collective(rdma_cluster(1, n, 50, 5), dp_shape(n, 1), Collective::ALL_REDUCE, bytes, Fidelity::EXACT);
  const double latency = 2.0 * (n - 1) * ALPHA;
  CHECK((t_half - latency) == Approx(2 * (t_full - latency)).epsilon(1e-6));
}

TEST_CASE("Contention: two data-parallel groups sharing each NIC take twice the bandwidth time", "[sim]")
{
  // tp = 2 on 2 GPUs per node: two DP rings (one per tensor slice) cross every NIC at once.
  const int nodes = 8;
  const std::uint64_t bytes = 256ull << 20;
  const auto one = time_collective(rdma_cluster(1, nodes, 100, 5), dp_shape(nodes, 1), Collective::ALL_REDUCE, bytes,
                                   Fidelity::EXACT, Algo::RING);
  const auto two = time_collective(rdma_cluster(2, nodes, 100, 5), dp_shape(2 * nodes, 2, 2), Collective::ALL_REDUCE,
                                   bytes, Fidelity::EXACT, Algo::RING);
  const double latency = 2.0 * (nodes - 1) * ALPHA;
  CHECK((two - latency) == Approx(2 * (one - latency)).epsilon(1e-6));
}

TEST_CASE("TCP window: on a 10 ms WAN a flow is capped at window / (2 x path latency)", "[sim]")
{
  // Two machines, 10 Gb/s, 5 ms one-way NIC latency: path latency 10 ms + 2 x 0.5 us.
  auto topo          = rdma_cluster(1, 2, 10, 5000);
  topo.network_model = ccsim::sim::NetworkModel::TCP;
  topo.tcp_window_bytes = 4194304;
  const std::uint64_t bytes = 1ull << 30;
  const double t = time_collective(topo, dp_shape(2, 1), Collective::ALL_REDUCE, bytes, Fidelity::EXACT, Algo::RING);
  const double path   = 2 * 0.5e-6 + 2 * 5e-3;
  // LV08 scales a flow's rate by its bandwidth factor 0.97 after the window cap (docs/design/notes/simgrid.md §3):
  // 0.97 x 4 MiB / 20 ms = 203 MB/s, far below the link's 0.97 x 1.25 GB/s.
  const double window = 0.97 * 4194304 / (2 * path);
  const double bandwidth_only = 2 * (13.01 * path + (bytes / 2.0) / (0.97 * 1.25e9));
  const double expected       = 2 * (13.01 * path + (bytes / 2.0) / window);
  CHECK(t == Approx(expected).epsilon(0.005));
  CHECK(t > 3 * bandwidth_only);
}

namespace {
using ccsim::sim::Flow;
using ccsim::sim::Round;

std::vector<std::tuple<int, int, std::uint64_t>> flows_of(const Round& r)
{
  std::vector<std::tuple<int, int, std::uint64_t>> out;
  for (const auto& f : r.flows)
    out.emplace_back(f.src, f.dst, f.bytes);
  return out;
}
} // namespace

TEST_CASE("merge_node_pairs: one flow per node pair, from the pair's first flow, bytes summed, order kept", "[sim]")
{
  // Two GPUs per node: node 0 = {0, 1}, node 1 = {2, 3}, node 2 = {4}. Worked by hand: 0->2, 1->3 and 1->2 join
  // nodes 0 and 1 (10 + 20 + 1 = 31 bytes, carried by the first, 0->2); 0->1 stays inside node 0; 2->0 and 4->0 are
  // the only flows of their node pairs.
  std::vector<Round> rounds(1);
  rounds[0].flows = {{0, 2, 10}, {1, 3, 20}, {0, 1, 5}, {2, 0, 7}, {1, 2, 1}, {4, 0, 3}};
  ccsim::sim::merge_node_pairs(rounds, 2);
  const std::vector<std::tuple<int, int, std::uint64_t>> expected{{0, 2, 31}, {0, 1, 5}, {2, 0, 7}, {4, 0, 3}};
  CHECK(flows_of(rounds[0]) == expected);
}

TEST_CASE("schedule_collective(merge): the rounds merge_node_pairs leaves, merged group by group", "[sim]")
{
  // Several groups per call, as a data-parallel collective with TP > 1 or SDP4Bit's per-position all-to-all issues:
  // the pieces merged as each group is scheduled must give the batch merge's flows, order and bytes exactly. The
  // last case's first group spans nodes 0-1 only, so the later groups' node pairs fall outside the table sized from
  // it (the map path).
  const int gpn = 4;
  auto by_position = [&](int nodes, int first_node) {
    std::vector<ccsim::sim::Group> groups(gpn);
    for (int node = first_node; node < first_node + nodes; ++node)
      for (int local = 0; local < gpn; ++local)
        groups[static_cast<std::size_t>(local)].push_back(node * gpn + local);
    return groups;
  };
  auto uneven = by_position(2, 0);
  for (const auto& g : by_position(4, 2))
    uneven.push_back(g);
  const std::vector<std::vector<ccsim::sim::Group>> cases{by_position(6, 0), {{0, 1, 2, 3, 4, 5, 6, 7}, {8, 9, 10, 11, 12, 13, 14, 15}}, uneven};
  for (const auto collective : {Collective::ALL_TO_ALL, Collective::ALL_REDUCE, Collective::ALL_GATHER})
    for (std::size_t k = 0; k < cases.size(); ++k) {
      auto batch = ccsim::sim::schedule_collective(collective, Algo::AUTO, cases[k], 1u << 20, Fidelity::FAST, gpn);
      std::size_t before = 0;
      for (const auto& r : batch)
        before += r.flows.size();
      ccsim::sim::merge_node_pairs(batch, gpn);
      const auto pieces =
          ccsim::sim::schedule_collective(collective, Algo::AUTO, cases[k], 1u << 20, Fidelity::FAST, gpn, true);
      INFO("collective " << static_cast<int>(collective) << ", case " << k << ", flows before merging " << before);
      REQUIRE(pieces.size() == batch.size());
      for (std::size_t r = 0; r < batch.size(); ++r) {
        CHECK(flows_of(pieces[r]) == flows_of(batch[r]));
        CHECK(pieces[r].extra_latency_terms == batch[r].extra_latency_terms);
      }
    }
}
