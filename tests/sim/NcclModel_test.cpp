// The NCCL-structured collective model (sim/nccl/NcclModel.hpp): NCCL's graph and cost model against numbers worked by hand
// from its tables, the double binary tree's NIC loads, the alpha-beta closed forms when the model is reduced to
// ccsim's ring, and the flows (sim/nccl/NcclFlows.hpp) reproducing the model's own time on an idle cluster.
#include "sim/nccl/DoubleTree.hpp"
#include "sim/nccl/NcclGraph.hpp"
#include "sim/nccl/NcclModel.hpp"
#include "sim/nccl/NcclTuner.hpp"
#include "io/Presets.hpp"
#include "sim/platform/Topology.hpp"
#include "tests/sim/SimTestSupport.hpp"

#include <cmath>
#include <filesystem>

using ccsim::sim::Algo;
using ccsim::sim::Collective;
using ccsim::sim::Fidelity;
using ccsim::sim::Proto;
using namespace ccsim::test;
namespace sim = ccsim::sim;

namespace {
/// An NCCL-mode cluster: g GPUs per node on `port_gbps` ports (line `line_gbps`), `nics` NICs of `nic_gbps`, every
/// link latency 0 (the collective's latency is NCCL's, sim/nccl/NcclModel.hpp).
sim::Topology nccl_cluster(sim::GpuArch arch, int g, int nodes, double line_gbps, double port_gbps, int nics,
                           double nic_gbps, bool nvls = false)
{
  auto t                      = rdma_cluster(g, nodes, nic_gbps, 0, port_gbps, 0);
  t.intra_nominal_bytes_per_s = line_gbps * 1e9 / 8;
  t.nic_count                 = nics;
  t.nccl.present              = true;
  t.nccl.arch                 = arch;
  t.nccl.nvls                 = nvls;
  if (nvls)
    t.nccl.nvls_bytes_per_s = 0.58 * t.intra_nominal_bytes_per_s;
  return t;
}

sim::GroupShape shape(int ranks, int nodes)
{
  return {ranks, nodes, ranks / nodes, true};
}

std::string data_file(const std::string& relative)
{
  return (std::filesystem::path(ccsim::io::data_dir()) / relative).string();
}

/// The simulated seconds of `c` on every GPU of `topo` against the model's own time.
void check_simulated_equals_model(const sim::Topology& topo, int gpus, Collective c, std::uint64_t bytes, Algo algo,
                                  Proto proto, Fidelity fidelity)
{
  auto t               = topo;
  t.nccl.algorithms    = {algo};
  t.nccl.protocols     = {proto};
  const auto plan      = sim::choose_collective(t, c, shape(gpus, gpus / t.gpus_per_node), bytes);
  const double sim_s   = time_collective(t, dp_shape(gpus, t.gpus_per_node), c, bytes, fidelity);
  INFO(gpus << " GPUs, collective " << static_cast<int>(c) << ", " << bytes << " B, " << sim::to_string(plan.algo)
            << "/" << sim::to_string(plan.proto) << (fidelity == Fidelity::EXACT ? " exact" : " fast"));
  CHECK(plan.algo == (c == Collective::ALL_TO_ALL || c == Collective::SEND_RECV ? Algo::DIRECT : algo));
  // Byte counts are whole numbers in the flows (wire bytes rounded up, per step in exact fidelity), so 1e-4 (fast) and
  // 1e-3 (exact, a 4 KiB buffer over 64 steps) rather than machine precision.
  CHECK(sim_s == Approx(plan.seconds()).epsilon(fidelity == Fidelity::EXACT ? 1e-3 : 1e-4));
}
} // namespace

TEST_CASE("DoubleTree: a NIC carries S at 2 nodes and up to 2S from 3 nodes on", "[sim]")
{
  // n = 2: tree 0 is 0 -> 1, tree 1 its mirror 1 -> 0: one edge per node per tree, S/2 each way per edge.
  CHECK(sim::tree_degrees(2) == std::vector<int>{2, 2});
  // n = 8 (graph/trees.cc's drawing): tree 0 = 0-4, 4-2, 2-1, 2-3, 4-6, 6-5, 6-7; tree 1 = the same with r -> 7-r.
  // Inner nodes of one tree (2, 4, 6 and 5, 3, 1) have 3 edges there and 1 in the other tree; 0 and 7 one each.
  CHECK(sim::tree_degrees(8) == std::vector<int>{2, 4, 4, 4, 4, 4, 4, 2});
  // n = 3 (odd: tree 1 is tree 0 shifted by one node, r -> r+1): 0-2-1 and 1-0-2.
  CHECK(sim::tree_degrees(3) == std::vector<int>{3, 2, 3});
  CHECK(sim::max_tree_degree(1) == 0);
}

TEST_CASE("NcclGraph: the channel counts NCCL prints for the calibration logs' clusters", "[sim]")
{
  sim::GraphInputs h100{sim::GpuArch::HOPPER, 8, 2, false, 450, 50, 8, true, std::nullopt};
  const auto g = sim::nccl_graphs(h100); // 8 NICs of 50 GB/s: one channel each at SM90's 48 GB/s (search.cc:1058)
  CHECK(g.ring.channels == 8);
  CHECK(g.ring.bw_intra == 48.0);
  CHECK(g.tree.bw_intra == 48.0); // no SM90 speed between 48 and 96 GB/s to raise it to
  sim::GraphInputs a100{sim::GpuArch::AMPERE, 8, 2, false, 300, 12.5, 16, false, std::nullopt};
  const auto a = sim::nccl_graphs(a100); // 16 NICs of 12.5 GB/s: 16 channels of 12; the tree's intra rate 15 (16 x 15
  CHECK(a.ring.channels == 16);          // = 240 GB/s, NVLink 12 x 20 GB/s as NCCL counts it)
  CHECK(a.ring.bw_intra == 12.0);
  CHECK(a.tree.bw_intra == 15.0);
  // One node: NVLink 18 x 20.6 = 370.8 GB/s, first SM90 speed below it 60 -> 6 channels, doubled to 12 of 30
  // (ncclTopoDupChannels); A100: 12 x 20 = 240 -> 6 of 40, doubled to 12 of 20.
  h100.nodes = 1;
  a100.nodes = 1;
  CHECK(sim::nccl_graphs(h100).ring.channels == 12);
  CHECK(sim::nccl_graphs(h100).ring.bw_intra == 30.0);
  CHECK(sim::nccl_graphs(a100).ring.channels == 12);
  CHECK(sim::nccl_graphs(a100).ring.bw_intra == 20.0);
}

TEST_CASE("NcclGraph + NcclTuner: on PCIe nodes behind one 40 GbE NIC the tree's intra-node speed doubles, so NCCL "
          "runs the tree at two nodes and the ring from four",
          "[sim]")
{
  // 1-bit LAMB's Ethernet cluster (docs/validation.md): 4 V100 per node on PCIe Gen3 (12 GB/s as NCCL counts it), one
  // NIC of 5 GB/s. The ring's search settles at one channel of 5 GB/s; the tree's second pass raises its intra-node
  // speed while it is below twice the network's and PCIe carries it: 6, 7, 9, 10 (search.cc, "See if we can
  // increase speedIntra for trees"; 12 would exceed 2 x 5).
  sim::GraphInputs in{sim::GpuArch::VOLTA, 4, 2, true, 0, 5.0, 1, false, std::nullopt};
  const auto g = sim::nccl_graphs(in);
  CHECK(g.ring.channels == 1);
  CHECK(g.ring.bw_intra == 5.0);
  CHECK(g.tree.bw_intra == 10.0);
  CHECK(g.tree.bw_inter == 5.0);
  // 680 MB (BERT-Large's fp16 gradient; log2(680e6 / 64) = 23.3, past the tree correction's last size). At two
  // nodes both algorithms are priced at their intra-node speed (tuning.cc:306): tree min(10 x 0.92, 18.5) x 0.5 =
  // 4.6 GB/s, ring 5 x 8/14 = 2.857 GB/s. Latencies (us): tree 8.4 + 2 (3 PCIe hops x 4.0 + 1 network hop x 14) =
  // 60.4; ring (8.4 + 12 x 5.7 + 2 x 14) x 1.9 (Volta's multi-node plateau) = 199.12.
  const std::uint64_t bytes = 680'000'000;
  const sim::TunerInputs two{Collective::ALL_REDUCE, 8, 2, sim::GpuArch::VOLTA, sim::CpuVendor::INTEL, true,
                             std::nullopt};
  const auto ring2 = sim::nccl_estimate_s(two, g, Algo::RING, Proto::SIMPLE, bytes);
  const auto tree2 = sim::nccl_estimate_s(two, g, Algo::TREE, Proto::SIMPLE, bytes);
  REQUIRE((ring2 && tree2));
  CHECK(*tree2 == Approx((60.4 + 680e6 / (1000 * 4.6)) * 1e-6).epsilon(1e-9));
  CHECK(*ring2 == Approx((199.12 + 680e6 / (1000 * 5.0 * 8 / 14)) * 1e-6).epsilon(1e-9));
  CHECK(*ring2 > 1.6 * *tree2);
  // From four nodes on, both at the network's 5 GB/s: tree min(5 x 0.92, 10) x 0.5 = 2.3, ring 5 x 16/30 = 2.667.
  // Latencies: tree 8.4 + 2 (3 x 4.0 + 2 x 14) = 88.4; ring (8.4 + 24 x 5.7 + 6 x 14) x 1.9 = 435.48.
  in.nodes = 4;
  const auto g4 = sim::nccl_graphs(in);
  const sim::TunerInputs four{Collective::ALL_REDUCE, 16, 4, sim::GpuArch::VOLTA, sim::CpuVendor::INTEL, true,
                             std::nullopt};
  const auto ring4 = sim::nccl_estimate_s(four, g4, Algo::RING, Proto::SIMPLE, bytes);
  const auto tree4 = sim::nccl_estimate_s(four, g4, Algo::TREE, Proto::SIMPLE, bytes);
  REQUIRE((ring4 && tree4));
  CHECK(*tree4 == Approx((88.4 + 680e6 / (1000 * 2.3)) * 1e-6).epsilon(1e-9));
  CHECK(*ring4 == Approx((435.48 + 680e6 / (1000 * 5.0 * 16 / 30)) * 1e-6).epsilon(1e-9));
  CHECK(*tree4 > 1.15 * *ring4);
}

TEST_CASE("NcclTuner 2.7: the release's own model, worked from tuning.cc at v2.7.8-1 on the same PCIe nodes", "[sim]")
{
  // The graph above (ring 1 channel of 5 GB/s; tree's intra-node speed 10). 680 MB, log2(680e6 / 64) = 23: past 2.7's
  // tree correction (22 sizes). Two nodes, intra-node speeds: tree min(10 x 0.9, 110) x 0.5 = 4.5 GB/s, latency
  // 0 + 2 (3 PCIe tree hops x 28 + 1 network tree hop x 50) = 268 us; ring 5 x 8/14, latency (8.4 + 12 x 5.7 + 2 x
  // 9.6) x 1.9 (plateau: at least 8/16 x 64 KiB) = 182.4 us.
  sim::GraphInputs in{sim::GpuArch::VOLTA, 4, 2, true, 0, 5.0, 1, false, std::nullopt};
  const auto v278         = sim::parse_nccl_version("2.7.8");
  const std::uint64_t bytes = 680'000'000;
  sim::TunerInputs two{Collective::ALL_REDUCE, 8, 2, sim::GpuArch::VOLTA, sim::CpuVendor::INTEL, true, v278};
  const auto tree2 = sim::nccl_estimate_s(two, sim::nccl_graphs(in), Algo::TREE, Proto::SIMPLE, bytes);
  const auto ring2 = sim::nccl_estimate_s(two, sim::nccl_graphs(in), Algo::RING, Proto::SIMPLE, bytes);
  REQUIRE((tree2 && ring2));
  CHECK(*tree2 == Approx((268 + 680e6 / (1000 * 4.5)) * 1e-6).epsilon(1e-9));
  CHECK(*ring2 == Approx((182.4 + 680e6 / (1000 * 5.0 * 8 / 14)) * 1e-6).epsilon(1e-9));
  // Four nodes, network speed: tree min(5 x 0.9, 80) x 0.5 = 2.25 GB/s, latency 2 (3 x 28 + 2 x 50) = 368 us; ring
  // 5 x 16/30, latency (8.4 + 24 x 5.7 + 6 x 9.6) x 1.9 = 385.32 us.
  in.nodes = 4;
  const sim::TunerInputs four{Collective::ALL_REDUCE, 16, 4, sim::GpuArch::VOLTA, sim::CpuVendor::INTEL, true, v278};
  const auto tree4 = sim::nccl_estimate_s(four, sim::nccl_graphs(in), Algo::TREE, Proto::SIMPLE, bytes);
  const auto ring4 = sim::nccl_estimate_s(four, sim::nccl_graphs(in), Algo::RING, Proto::SIMPLE, bytes);
  REQUIRE((tree4 && ring4));
  CHECK(*tree4 == Approx((368 + 680e6 / (1000 * 2.25)) * 1e-6).epsilon(1e-9));
  CHECK(*ring4 == Approx((385.32 + 680e6 / (1000 * 5.0 * 16 / 30)) * 1e-6).epsilon(1e-9));
  // 2.7 has no tree for the all-gather, and the 2.8 release leaves this model: its estimate is the current one.
  two.collective = Collective::ALL_GATHER;
  CHECK_FALSE(sim::nccl_estimate_s(two, sim::nccl_graphs(in), Algo::TREE, Proto::SIMPLE, bytes));
  sim::TunerInputs v28 = four;
  v28.version          = sim::parse_nccl_version("2.8.3");
  CHECK(*sim::nccl_estimate_s(v28, sim::nccl_graphs(in), Algo::TREE, Proto::SIMPLE, bytes) ==
        Approx((8.4 + 2 * (3 * 4.0 + 2 * 14) + 680e6 / (1000 * 2.3)) * 1e-6).epsilon(1e-9));
  // A small tree all-reduce takes 2.7's correction: 64 KiB is log2(1024) = 10, Simple row 0.6.
  CHECK(*sim::nccl_estimate_s(four, sim::nccl_graphs(in), Algo::TREE, Proto::SIMPLE, 65536) ==
        Approx((368 + 65536 / (1000 * 2.25 * 0.6)) * 1e-6).epsilon(1e-9));
}

TEST_CASE("NcclModel: 1-bit LAMB's Ethernet cluster runs NCCL 2.7.8's pick, the tree at two nodes and the ring beyond",
          "[sim]")
{
  // The preset states NCCL 2.7.8, ring and tree allowed. Beyond two nodes 2.7's estimates put the ring about 9 % ahead
  // (64 nodes: 277 against 303 ms); no graph error reorders them there, so no near-tie band hands it to ccsim's model.
  const auto t = sim::load_topology(data_file("topologies/v100x4-eth40g.json"));
  REQUIRE(t.nccl.version);
  CHECK(sim::choose_collective(t, Collective::ALL_REDUCE, shape(8, 2), 680'000'000).algo == Algo::TREE);
  for (const int nodes : {4, 16, 64})
    CHECK(sim::choose_collective(t, Collective::ALL_REDUCE, shape(4 * nodes, nodes), 680'000'000).algo == Algo::RING);
  // The InfiniBand cluster's PCIe nodes keep the ring at two nodes: its tree cannot rise above the network's 12 GB/s.
  const auto ib = sim::load_topology(data_file("topologies/v100x8-ib100.json"));
  CHECK(sim::choose_collective(ib, Collective::ALL_REDUCE, shape(16, 2), 680'000'000).algo == Algo::RING);
}

TEST_CASE("NcclTuner: NCCL's estimate of a 1 GiB ring all-reduce on one A100 node worked from its tables", "[sim]")
{
  // 12 channels x 20 GB/s = 240 GB/s bus bandwidth, x n / nsteps = 8 / 14 (tuning.cc:376-381) = 137.14 GB/s algbw;
  // latency: base 8.4 us + 14 steps x NVLink ring Simple 3.4 us = 56 us (tuning.cc:149-176, :410-412).
  const sim::GraphInputs in{sim::GpuArch::AMPERE, 8, 1, false, 300, 0, 0, false, std::nullopt};
  const sim::TunerInputs t{Collective::ALL_REDUCE, 8, 1, sim::GpuArch::AMPERE, sim::CpuVendor::INTEL, false,
                           std::nullopt};
  const double bytes    = 1073741824.0;
  const double expected = 56e-6 + bytes / (240e9 * 8.0 / 14.0);
  const auto est        = sim::nccl_estimate_s(t, sim::nccl_graphs(in), Algo::RING, Proto::SIMPLE, 1u << 30);
  REQUIRE(est);
  CHECK(*est == Approx(expected).epsilon(1e-9));
  // LL: bus bandwidth min(llMaxBws[Ampere][N1] = 87.7, 240 x 0.5), latency 6.6 + 14 x 0.6 us (tuning.cc:326).
  const auto ll = sim::nccl_estimate_s(t, sim::nccl_graphs(in), Algo::RING, Proto::LL, 4096);
  REQUIRE(ll);
  CHECK(*ll == Approx(15e-6 + 4096 / (87.7e9 * 8.0 / 14.0)).epsilon(1e-9));
}

TEST_CASE("NcclModel: NCCL on two H100 nodes runs the tree with LL for small sizes and NVLS-Tree for large ones",
          "[sim]")
{
  // What NCCL did on 2 x 8 H100 with 8 x 400G NDR (nccl-tests#309, maintainer: NVLS-Tree on 2 nodes; NCCL's tuner
  // prefers trees with LL below a few KiB on every multi-node NVSwitch system).
  auto t = nccl_cluster(sim::GpuArch::HOPPER, 8, 2, 3600, 2880, 8, 368, /*nvls=*/true);
  const auto small = sim::choose_collective(t, Collective::ALL_REDUCE, shape(16, 2), 1024);
  CHECK(small.algo == Algo::TREE);
  CHECK(small.proto == Proto::LL);
  const auto large = sim::choose_collective(t, Collective::ALL_REDUCE, shape(16, 2), std::uint64_t{1} << 34);
  CHECK(large.algo == Algo::NVLS_TREE);
  CHECK(large.proto == Proto::SIMPLE);
}

TEST_CASE("NcclModel: ring with Simple and the links' latency is ccsim's alpha-beta ring 2(n-1)(S/(n B) + alpha)",
          "[sim]")
{
  // One GPU per node, 100 Gb/s NICs of 5 us, ports of 0.5 us: alpha = 2 x 0.5 + 2 x 5 = 11 us, B = 12.5e9 B/s.
  auto t           = rdma_cluster(1, 16, 100, 5);
  t.nccl.present   = true;
  t.nccl.arch      = sim::GpuArch::AMPERE;
  t.nccl.latency   = sim::LatencyModel::LINKS;
  t.nccl.algorithms = {Algo::RING};
  t.nccl.protocols  = {Proto::SIMPLE};
  t.intra_nominal_bytes_per_s = t.intra_bytes_per_s;
  const std::uint64_t bytes   = 64ull << 20;
  const double expected       = 2.0 * 15 * (11e-6 + static_cast<double>(bytes / 16) / 12.5e9);
  for (auto fidelity : {Fidelity::FAST, Fidelity::EXACT})
    CHECK(time_collective(t, dp_shape(16, 1), Collective::ALL_REDUCE, bytes, fidelity) == Approx(expected).epsilon(1e-6));
  CHECK(sim::choose_collective(t, Collective::ALL_REDUCE, shape(16, 16), bytes).seconds() ==
        Approx(expected).epsilon(1e-6));
}

TEST_CASE("NcclModel: a protocol's GPU-side ceiling holds a collective to its floor", "[sim]")
{
  // Ring LL on one A100 node: the links move 2 x 14 x S/8 wire bytes (LL doubles them) through a 300 GB/s port, but
  // LL's kernels reach only llMaxBws[Ampere][N1] = 87.7 GB/s of bus data: 14 x (S/8) / 87.7e9 (tuning.cc:177-183).
  auto t               = nccl_cluster(sim::GpuArch::AMPERE, 8, 1, 2400, 2400, 1, 100);
  t.nccl.algorithms    = {Algo::RING};
  t.nccl.protocols     = {Proto::LL};
  const double S       = 8ull << 20;
  const auto plan      = sim::choose_collective(t, Collective::ALL_REDUCE, shape(8, 1), 8ull << 20);
  CHECK(plan.floor_s == Approx(14 * (S / 8) / 87.7e9).epsilon(1e-12));
  CHECK(plan.links_s == Approx(2 * 14 * (S / 8) / 300e9).epsilon(1e-12));
  const double latency = (6.6 + 14 * 0.6) * 1e-6; // base + 14 NVLink hops of LL (tuning.cc:149-176)
  CHECK(time_collective(t, dp_shape(8, 8), Collective::ALL_REDUCE, 8ull << 20, Fidelity::FAST) ==
        Approx(latency + plan.floor_s).epsilon(1e-9));
}

TEST_CASE("NcclModel: the simulated flows take the model's time on an idle cluster", "[sim]")
{
  const auto h100 = nccl_cluster(sim::GpuArch::HOPPER, 8, 8, 3600, 2850, 8, 368, /*nvls=*/true);
  const auto a100 = nccl_cluster(sim::GpuArch::AMPERE, 8, 8, 2400, 1900, 16, 90); // 2 NICs per GPU
  auto shared     = nccl_cluster(sim::GpuArch::HOPPER, 8, 8, 3600, 2850, 4, 180); // a NIC per 2 GPUs
  for (const std::uint64_t bytes : {std::uint64_t{4096}, std::uint64_t{8} << 20, std::uint64_t{1} << 30})
    for (const auto fidelity : {Fidelity::FAST, Fidelity::EXACT}) {
      for (const int gpus : {16, 24, 64})
        for (const auto p : {Proto::LL, Proto::LL128, Proto::SIMPLE}) {
          check_simulated_equals_model(h100, gpus, Collective::ALL_REDUCE, bytes, Algo::TREE, p, fidelity);
          check_simulated_equals_model(a100, gpus, Collective::ALL_REDUCE, bytes, Algo::RING, p, fidelity);
          check_simulated_equals_model(shared, gpus, Collective::ALL_GATHER, bytes, Algo::RING, p, fidelity);
        }
      check_simulated_equals_model(h100, 8, Collective::ALL_REDUCE, bytes, Algo::NVLS, Proto::SIMPLE, fidelity);
      check_simulated_equals_model(h100, 64, Collective::ALL_REDUCE, bytes, Algo::NVLS_TREE, Proto::SIMPLE, fidelity);
      for (const auto c : {Collective::SEND_RECV, Collective::ALL_TO_ALL})
        check_simulated_equals_model(a100, 24, c, bytes, Algo::DIRECT, Proto::SIMPLE, fidelity);
    }
}

TEST_CASE("NcclModel: a send between nodes leaves through its GPU's own NIC", "[sim]")
{
  // 2 nodes of 8 GPUs with 8 x 400G rails (delivering 368 Gb/s each): rank 7 sends S to rank 8 over GPU 7's rail
  // only, S / 46 GB/s, although the node's NICs together would carry it 8 times faster.
  auto t              = nccl_cluster(sim::GpuArch::HOPPER, 8, 2, 3600, 2850, 8, 368);
  const double S      = 1ull << 30;
  const auto plan     = sim::choose_collective(t, Collective::SEND_RECV, shape(16, 2), 1ull << 30);
  CHECK(plan.proto == Proto::SIMPLE);
  CHECK(plan.floor_s == Approx(S / 46e9).epsilon(1e-12));
}
