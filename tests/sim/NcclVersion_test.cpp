// NCCL releases (sim/platform/NcclVersion.hpp): the banner's version read, and what each release has, against the
// release commits of NVIDIA/nccl (2.4.2 "Add tree algorithms for allreduce", 2.5.6 "Add LL128 Protocol", 2.17.1 "Add
// new NVLS algorithm for allreduce using NVLink SHARP (intra-node only)", 2.18.1 "Add NVLS+Tree algorithm"); then the
// model choosing on two H100 nodes as each release would.
#include "sim/nccl/NcclModel.hpp"
#include "sim/platform/NcclConfig.hpp"
#include "sim/platform/NcclVersion.hpp"
#include "tests/sim/SimTestSupport.hpp"

#include <catch2/catch.hpp>

namespace sim = ccsim::sim;
using sim::Algo;
using sim::Proto;

TEST_CASE("NcclVersion: reads the banner's forms and refuses anything else", "[sim]")
{
  const auto v = sim::parse_nccl_version("2.26.6+cuda12.8"); // nccl-tests' "NCCL version 2.26.6+cuda12.8"
  REQUIRE(v);
  CHECK(v->text() == "2.26.6");
  CHECK(sim::parse_nccl_version("2.18.1-1")->text() == "2.18.1"); // a release tag
  CHECK(sim::parse_nccl_version("2.18")->text() == "2.18.0");
  for (const char* bad : {"", "2", "3.1.0", "1.3.5", "2.x", "2.18.1.4", "2.18.1abc", "v2.18.1", "2..1", "2.99999.1",
                          "2.18.", " 2.18.1"}) {
    INFO(bad);
    CHECK(!sim::parse_nccl_version(bad));
  }
}

TEST_CASE("NcclVersion: each algorithm and protocol from the release that added it", "[sim]")
{
  auto v = [](const char* text) { return sim::parse_nccl_version(text); };
  CHECK(!sim::release_has(v("2.4.1"), Algo::TREE));
  CHECK(sim::release_has(v("2.4.2"), Algo::TREE));
  CHECK(!sim::release_has(v("2.5.5"), Proto::LL128));
  CHECK(sim::release_has(v("2.5.6"), Proto::LL128));
  CHECK(!sim::release_has(v("2.16.5"), Algo::NVLS));
  CHECK(sim::release_has(v("2.17.1"), Algo::NVLS));
  CHECK(!sim::release_has(v("2.17.1"), Algo::NVLS_TREE));
  CHECK(sim::release_has(v("2.18.1"), Algo::NVLS_TREE));
  for (const char* any : {"2.0.0", "2.3.7", "2.26.6"}) {
    INFO(any);
    CHECK(sim::release_has(v(any), Algo::RING));
    CHECK(sim::release_has(v(any), Algo::DIRECT));
    CHECK(sim::release_has(v(any), Proto::LL));
    CHECK(sim::release_has(v(any), Proto::SIMPLE));
  }
  // No version: the newest, every one.
  CHECK(sim::release_has(std::nullopt, Algo::NVLS_TREE));
  CHECK(sim::release_has(std::nullopt, Proto::LL128));
}

TEST_CASE("NcclVersion: on two H100 nodes a release before 2.18.1 cannot run NVLS-Tree, before 2.4.2 the tree",
          "[sim]")
{
  // The cluster of NcclModel_test's "tree with LL for small sizes and NVLS-Tree for large ones": 16 GiB runs NVLS-Tree
  // on the newest NCCL. Each older release falls back to what it has.
  auto t                      = ccsim::test::rdma_cluster(8, 2, 368, 0, 2880, 0);
  t.intra_nominal_bytes_per_s = 3600 * 1e9 / 8;
  t.nic_count                 = 8;
  t.nccl.present              = true;
  t.nccl.arch                 = sim::GpuArch::HOPPER;
  t.nccl.nvls                 = true;
  t.nccl.nvls_bytes_per_s     = 0.58 * t.intra_nominal_bytes_per_s;
  const sim::GroupShape two_nodes{16, 2, 8, true};
  const std::uint64_t large = std::uint64_t{1} << 34;
  CHECK(sim::choose_collective(t, sim::Collective::ALL_REDUCE, two_nodes, large).algo == Algo::NVLS_TREE);
  t.nccl.version = sim::parse_nccl_version("2.17.1");
  CHECK(sim::choose_collective(t, sim::Collective::ALL_REDUCE, two_nodes, large).algo != Algo::NVLS_TREE);
  // One node: 2.17.1 has NVLS, 2.16.5 does not.
  const sim::GroupShape one_node{8, 1, 8, true};
  CHECK(sim::choose_collective(t, sim::Collective::ALL_REDUCE, one_node, large).algo == Algo::NVLS);
  t.nccl.version = sim::parse_nccl_version("2.16.5");
  CHECK(sim::choose_collective(t, sim::Collective::ALL_REDUCE, one_node, large).algo != Algo::NVLS);
  // 2.3.7: neither the tree nor LL128 at any size; the ring with LL or Simple.
  t.nccl.version = sim::parse_nccl_version("2.3.7");
  for (const std::uint64_t bytes : {std::uint64_t{1024}, std::uint64_t{1} << 20, large}) {
    const auto plan = sim::choose_collective(t, sim::Collective::ALL_REDUCE, two_nodes, bytes);
    INFO(bytes << " B: " << sim::to_string(plan.algo) << "/" << sim::to_string(plan.proto));
    CHECK(plan.algo == Algo::RING);
    CHECK(plan.proto != Proto::LL128);
  }
}
