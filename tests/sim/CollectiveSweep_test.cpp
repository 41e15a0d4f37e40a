// More closed forms and fidelity checks for the collectives (sim/collective/Collectives.cpp), on sizes and shapes that
// Collectives_test.cpp does not cover: reduce-scatter / all-gather over n = 2..256 (including n that do not
// divide the buffer), latency sensitivity, hierarchical all-reduce on several node shapes, and fast vs exact
// for reduce-scatter, all-gather and all-to-all on multi-GPU nodes.
#include "tests/sim/SimTestSupport.hpp"

using ccsim::sim::Algo;
using ccsim::sim::Collective;
using ccsim::sim::Fidelity;
using namespace ccsim::test;

namespace {
// rdma_cluster(1, n, 100, 5): a message between ranks crosses port (0.5 us), NIC (5 us), NIC, port:
// alpha = 2 x 0.5 us + 2 x 5 us = 11 us; the NIC is the bottleneck at 100 Gb/s = 12.5e9 B/s.
constexpr double ALPHA = 11e-6;
constexpr double B     = 12.5e9;

double ceil_div(std::uint64_t a, std::uint64_t b)
{
  return static_cast<double>((a + b - 1) / b);
}
} // namespace

TEST_CASE("ReduceScatter and AllGather: exact mode equals (n-1)(alpha + ceil(S/n)/B) for n = 2..256", "[sim]")
{
  // A ring of n ranks sends n-1 rounds of one chunk per rank; the chunk is S/n rounded up to whole bytes
  // (sim/collective/Collectives.cpp), which n = 7 needs (48 MiB is not a multiple of 7).
  const std::uint64_t bytes = 48ull << 20;
  for (int n : {2, 3, 7, 32, 256}) {
    const auto topo       = rdma_cluster(1, n, 100, 5);
    const double expected = (n - 1) * (ALPHA + ceil_div(bytes, n) / B);
    INFO("n = " << n);
    CHECK(time_collective(topo, dp_shape(n, 1), Collective::REDUCE_SCATTER, bytes, Fidelity::EXACT) ==
          Approx(expected).epsilon(1e-6));
    CHECK(time_collective(topo, dp_shape(n, 1), Collective::ALL_GATHER, bytes, Fidelity::EXACT) ==
          Approx(expected).epsilon(1e-6));
  }
}

TEST_CASE("Latency: adding d to each NIC adds 2(n-1) x 2d to a ring all-reduce", "[sim]")
{
  // Each of the 2(n-1) rounds crosses two NICs (sender's, receiver's), so its latency grows by 2d; the
  // bandwidth term does not change.
  const int n = 8;
  const std::uint64_t bytes = 8ull << 20;
  const double t5  = time_collective(rdma_cluster(1, n, 100, 5), dp_shape(n, 1), Collective::ALL_REDUCE, bytes,
                                     Fidelity::EXACT, Algo::RING);
  const double t15 = time_collective(rdma_cluster(1, n, 100, 15), dp_shape(n, 1), Collective::ALL_REDUCE, bytes,
                                     Fidelity::EXACT, Algo::RING);
  CHECK((t15 - t5) == Approx(2.0 * (n - 1) * 2 * 10e-6).epsilon(1e-5));
}

TEST_CASE("HierarchicalAllReduce: closed form on 2x2 and 2x16 and 8x16 (GPUs per node x nodes)", "[sim]")
{
  // Ports 400 Gb/s (50e9 B/s), 1 us each; NICs 100 Gb/s, 5 us. Intra-node ring of g: (g-1)(2 us + (S/g)/50e9)
  // twice (reduce-scatter, all-gather); inter-node: g rings (one per local index) share each NIC, so each gets
  // B/g for 2(m-1) rounds of S/(g m) with alpha = 2 ports + 2 NICs = 12 us.
  const std::uint64_t bytes = 64ull << 20; // divisible by every g x m below
  for (auto [g, m] : {std::pair{2, 2}, std::pair{2, 16}, std::pair{8, 16}}) {
    const auto topo    = rdma_cluster(g, m, 100, 5, 400, 1);
    const double shard = static_cast<double>(bytes) / g;
    const double intra = (g - 1) * (2e-6 + shard / 50e9);
    const double inter = 2.0 * (m - 1) * (12e-6 + (shard / m) / (B / g));
    INFO("g = " << g << ", m = " << m);
    CHECK(time_collective(topo, dp_shape(g * m, g), Collective::ALL_REDUCE, bytes, Fidelity::EXACT,
                          Algo::HIERARCHICAL) == Approx(2 * intra + inter).epsilon(1e-6));
  }
}

TEST_CASE("Fidelity: fast agrees with exact within 3% for reduce-scatter and all-gather and all-to-all on 16 x 8 GPUs",
          "[sim]")
{
  // 128 GPUs on 16 nodes of 8 (NVLink-like 2400 Gb/s ports, 100 Gb/s NICs): the ring crosses a NIC at every
  // node boundary; the fast all-to-all aggregates each node pair into one flow. Both must stay within the
  // 3 % the issue asks for; the exact runs are ~16k messages each.
  const auto topo = rdma_cluster(8, 16, 100, 5, 2400, 1);
  const auto shape = dp_shape(128, 8);
  for (auto c : {Collective::REDUCE_SCATTER, Collective::ALL_GATHER, Collective::ALL_TO_ALL}) {
    const std::uint64_t bytes = 256ull << 20;
    const double exact = time_collective(topo, shape, c, bytes, Fidelity::EXACT);
    const double fast  = time_collective(topo, shape, c, bytes, Fidelity::FAST);
    INFO("collective " << static_cast<int>(c));
    CHECK(fast == Approx(exact).epsilon(0.03));
  }
}
