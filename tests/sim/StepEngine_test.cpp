// The step engine adds compute, kernels, collectives and the optimizer in order, and runs GPipe for pipelines.
#include "tests/sim/SimTestSupport.hpp"

#include "sim/step/PhaseOps.hpp"

using namespace ccsim;
using namespace ccsim::test;

TEST_CASE("StepEngine: a data-parallel step is accumulation x (f + b) + kernels + allreduce + optimizer", "[sim]")
{
  auto topo = rdma_cluster(1, 4, 100, 5);
  topo.gpu.kernel_bytes_per_s["onebit_compress"] = 100e9;
  sim::Workload w = no_compute();
  w.params        = 1000000;
  w.compute.push_back({"TEST", 8, 1, 1, 1, 0.010, 0.020, "", "test"}); // 10 ms forward, 20 ms backward
  w.optimizer_s["TEST"]["adam"] = 0.004;
  auto s              = dp_shape(4, 1);
  s.micro_batch       = 8;
  s.grad_accumulation = 3;
  s.seq_len           = 1;
  const std::uint64_t bytes = 8ull << 20;
  const auto out = in_child([&] {
    sim::StepPlan plan{{sim::PhasePlan{"p", 1.0,
                                       {sim::KernelOp{"onebit_compress", 1000000000},
                                        sim::CommOp{"ar", sim::Collective::ALL_REDUCE, sim::GroupKind::DATA_PARALLEL, bytes},
                                        sim::OptimizerOp{"adam", "", 500000}},
                                       std::nullopt}}};
    const auto r = sim::simulate_step(topo, w, plan, s, sim::Fidelity::EXACT, false);
    const auto& p = r.phases.at(0);
    return std::vector<double>{p.step_time_s, p.compute_s, p.compression_s, p.optimizer_s, p.allreduce_s};
  });
  const double compute   = 3 * (0.010 + 0.020);
  const double kernel    = 1e9 / 100e9;                          // 10 ms
  const double allreduce = 2 * 3 * (11e-6 + (bytes / 4.0) / 12.5e9); // ring of 4 (see Collectives_test)
  const double optimizer = 0.004 * 500000 / 1000000;              // the table's full-model time, scaled to the shard
  CHECK(out[1] == Approx(compute));
  CHECK(out[2] == Approx(kernel));
  CHECK(out[3] == Approx(optimizer));
  CHECK(out[4] == Approx(allreduce).epsilon(1e-6));
  CHECK(out[0] == Approx(compute + kernel + allreduce + optimizer).epsilon(1e-9));
}

TEST_CASE("StepEngine: GPipe with negligible messages takes (m + pp - 1)(f + b)", "[sim]")
{
  // pp = 4 stages, m = 6 micro-batches, per-stage f = 10 ms, b = 30 ms (profile measured per stage at pp = 4).
  const auto topo = rdma_cluster(1, 4, 100, 0.001, 10000, 0.001);
  const auto w    = stage_workload(4, 0.010, 0.030);
  const auto s    = pipeline_shape(4, 1, 6);
  const auto out = in_child([&] {
    sim::PhasePlan phase{"pipe", 1.0, {}, sim::PipelineComm{1, 1, {}}};
    const auto r = sim::simulate_step(topo, w, sim::StepPlan{{phase}}, s, sim::Fidelity::EXACT, false);
    return std::vector<double>{r.phases.at(0).step_time_s};
  });
  CHECK(out[0] == Approx((6 + 4 - 1) * (0.010 + 0.030)).epsilon(1e-4));
}

TEST_CASE("StepEngine: pipeline sends slower than compute set the pace", "[sim]")
{
  // 2 stages, m = 4, f = b = 1 ms, each message takes 100 ms on a 1 Gb/s link (12.5 MB): the boundary
  // carries 4 forward messages back to back, then 4 backward ones.
  const auto topo = rdma_cluster(1, 2, 1, 0.001, 10000, 0.001);
  const auto w    = stage_workload(2, 0.001, 0.001);
  const auto s    = pipeline_shape(2, 1, 4);
  const auto out = in_child([&] {
    sim::PhasePlan phase{"pipe", 1.0, {}, sim::PipelineComm{12500000, 12500000, {}}};
    const auto r = sim::simulate_step(topo, w, sim::StepPlan{{phase}}, s, sim::Fidelity::EXACT, false);
    return std::vector<double>{r.phases.at(0).step_time_s, r.phases.at(0).pipeline_forward_comm_s};
  });
  // Forward: first send starts after 1 ms, four 0.1 s transfers in a row, stage 1 computes the last one (1 ms);
  // backward mirrors it: 2 x (0.001 + 4 x 0.1 + 0.001).
  CHECK(out[0] == Approx(2 * (0.002 + 0.4)).epsilon(1e-3));
}

TEST_CASE("StepEngine: a pipeline's bubble pays (pp - 1) / (vpp m) more of an in-layer collective", "[sim]")
{
  // 2 stages of tp 2 on one 4-GPU node, m = 4 micro-batches, f = b = 1 ms per stage. A tensor-parallel all-reduce of
  // the step's m micro-batches runs inside every pass, so the fill and drain's (pp - 1) / vpp micro-batches wait for
  // it too: the step grows by T (1 + 1 / (vpp m)), T the op alone on the same groups (Narayanan et al. 2021 §2.2.1).
  // A data-parallel op of the same size is charged once (here dp = 1: its groups are single GPUs, so it takes 0).
  const auto topo = rdma_cluster(4, 1, 100, 5, /*intra_gbps=*/100); // 64 MiB between two GPUs: about 5 ms
  sim::Workload w = no_compute();
  w.compute.push_back({"TEST", 1, 1, 2, 2, 0.001, 0.001, "", "test"});
  auto s          = pipeline_shape(2, 1, 4);
  s.tp = 2, s.gpus = 4, s.gpus_per_node = 4;
  const std::uint64_t bytes = 64ull << 20;
  auto step = [&](int vpp, bool with_op) {
    auto shape = s;
    shape.vpp  = vpp;
    const auto out = in_child([&] {
      std::vector<sim::Op> ops;
      if (with_op)
        ops.push_back(sim::CommOp{"tp", sim::Collective::ALL_REDUCE, sim::GroupKind::TENSOR_PARALLEL, bytes});
      sim::PhasePlan phase{"pipe", 1.0, ops, sim::PipelineComm{1, 1, {}}};
      const auto r = sim::simulate_step(topo, w, sim::StepPlan{{phase}}, shape, sim::Fidelity::EXACT, false);
      return std::vector<double>{r.phases.at(0).step_time_s};
    });
    REQUIRE(out.size() == 1);
    return out[0];
  };
  // The same groups without a pipeline: pp 1, tp 2, dp 2 pairs GPUs {0, 1} and {2, 3} as the two stages do.
  const double alone = time_collective(topo, dp_shape(4, 4, 2), sim::Collective::ALL_REDUCE, bytes,
                                       sim::Fidelity::EXACT, sim::Algo::AUTO, sim::GroupKind::TENSOR_PARALLEL);
  REQUIRE(alone > 0.001);
  CHECK(step(1, true) - step(1, false) == Approx(alone * (1 + 1.0 / 4)).epsilon(1e-6));
  CHECK(step(2, true) - step(2, false) == Approx(alone * (1 + 1.0 / 8)).epsilon(1e-6));
  CHECK(sim::in_layer_bubble_share(s, sim::GroupKind::DATA_PARALLEL) == 0);
  auto flat = s;
  flat.pp   = 1;
  CHECK(sim::in_layer_bubble_share(flat, sim::GroupKind::TENSOR_PARALLEL) == 0);
  CHECK(sim::in_layer_bubble_share(s, sim::GroupKind::EXPERT_PARALLEL) == Approx(0.25));
}
