// A node's NICs shared by one communicator or by several (issue 32): a per-flow ceiling binds one ring crossing the
// node; several concurrent groups share the node's uplink. And kernels that count in allreduce_ms.
#include "tests/sim/SimTestSupport.hpp"

using namespace ccsim;
using namespace ccsim::test;

namespace {
// 2 nodes of 4 GPUs, a 200 Gbit/s node uplink (25e9 B/s), any one flow at most 100 Gbit/s (12.5e9 B/s).
sim::Topology two_nodes()
{
  auto t                 = rdma_cluster(4, 2, 200, 0.001, 100000, 0.001);
  t.per_flow_bytes_per_s = 12.5e9;
  return t;
}
} // namespace

TEST_CASE("NIC sharing: one ring crossing a node is held to the per-flow ceiling", "[sim]")
{
  // TP 1: one reduce-scatter ring over the 8 GPUs; each node's only inter-node flow carries 7 chunks of S/8.
  const std::uint64_t S = 80000000;
  const double t        = time_collective(two_nodes(), dp_shape(8, 4, 1), sim::Collective::REDUCE_SCATTER, S,
                                          sim::Fidelity::FAST);
  CHECK(t == Approx(7.0 * S / 8 / 12.5e9).epsilon(0.01)); // 5.6 ms at the flow's 12.5e9, not the uplink's 25e9
}

TEST_CASE("NIC sharing: four groups at once (TP 4) share the node's uplink past the per-flow ceiling", "[sim]")
{
  // TP 4: four data-parallel groups (GPU j of each node), each reduce-scattering S: every rank sends S/2 to its peer,
  // four flows per node share 25e9 B/s (each 6.25e9, under the 12.5e9 ceiling): 4 x S/2 / 25e9.
  const std::uint64_t S = 80000000;
  const double t        = time_collective(two_nodes(), dp_shape(8, 4, 4), sim::Collective::REDUCE_SCATTER, S,
                                          sim::Fidelity::FAST);
  CHECK(t == Approx(4.0 * S / 2 / 25e9).epsilon(0.01)); // 6.4 ms
}

TEST_CASE("StepEngine: a synchronisation kernel counts in allreduce beside its collective", "[sim]")
{
  // SDP4Bit Table 4's "Grad. Comm. Time" holds the quantization kernels of its gradient all-to-alls.
  auto topo = rdma_cluster(1, 4, 100, 5);
  topo.gpu.kernel_bytes_per_s["quant"] = 100e9;
  auto s    = dp_shape(4, 1);
  s.seq_len = 1;
  const std::uint64_t bytes = 8ull << 20;
  const auto out = in_child([&] {
    sim::KernelOp sync{"quant", 1000000000};
    sync.synchronisation = true;
    sim::StepPlan plan{{sim::PhasePlan{"p", 1.0,
                                       {sync, sim::KernelOp{"quant", 500000000},
                                        sim::CommOp{"ar", sim::Collective::ALL_REDUCE, sim::GroupKind::DATA_PARALLEL, bytes}},
                                       std::nullopt}}};
    const auto r  = sim::simulate_step(topo, no_compute(), plan, s, sim::Fidelity::EXACT, false);
    const auto& p = r.phases.at(0);
    return std::vector<double>{p.compression_s, p.allreduce_s, p.comm_s};
  });
  REQUIRE(out.size() == 3);
  const double allreduce = 2 * 3 * (11e-6 + (bytes / 4.0) / 12.5e9); // ring of 4 (see StepEngine_test)
  CHECK(out[0] == Approx(0.010 + 0.005));                            // both kernels are compression time
  CHECK(out[2] == Approx(allreduce).epsilon(1e-6));                  // neither is communication
  CHECK(out[1] == Approx(0.010 + allreduce).epsilon(1e-6));          // only the synchronisation one is in allreduce
}
