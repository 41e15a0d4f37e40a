// Overlap of communication with compute, and activation recomputation (docs/overlap.md): the bucket schedules'
// closed forms, the step engine's bucketed reduction and prefetch against them (bucket times measured alone, a
// separate simulation), tensor-parallel communication never hidden, "exposed comm" never above "comm", and the
// recomputed forward pass charged.
#include "sim/layout/OverlapSchedule.hpp"
#include "sim/schedule/PipelineCriticalPath.hpp"
#include "tests/sim/SimTestSupport.hpp"

using namespace ccsim;
using namespace ccsim::test;

namespace {
sim::BucketedOp equal_buckets(std::uint64_t k, double seconds)
{
  sim::BucketedOp op;
  op.buckets = sim::split_buckets(k * 100, 100);
  op.full_s  = seconds;
  return op;
}

/// 4 nodes x 1 GPU, 10 ms forward, 20 ms backward per micro-batch, 3 micro-batches.
sim::Workload timed_workload()
{
  sim::Workload w = no_compute();
  w.params        = 1000000;
  w.compute.push_back({"TEST", 8, 1, 1, 1, 0.010, 0.020, "", "test"});
  w.compute.push_back({"TEST", 8, 1, 2, 1, 0.010, 0.020, "", "test"}); // the same times at tp 2
  return w;
}

sim::StepShape timed_shape(int gpus, int gpus_per_node, int tp = 1)
{
  auto s              = dp_shape(gpus, gpus_per_node, tp);
  s.micro_batch       = 8;
  s.grad_accumulation = 3;
  s.seq_len           = 1;
  return s;
}

sim::CommOp gradient_allreduce(std::uint64_t bytes)
{
  sim::CommOp op{"allreduce gradients", sim::Collective::ALL_REDUCE, sim::GroupKind::DATA_PARALLEL, bytes};
  op.overlap_backward = true;
  return op;
}

/// step, compute, comm, exposed comm of one simulated phase.
std::vector<double> run_phase(const sim::Topology& topo, const sim::Workload& w, const sim::StepShape& s,
                              const sim::PhasePlan& phase)
{
  return in_child([&] {
    const auto r  = sim::simulate_step(topo, w, sim::StepPlan{{phase}}, s, sim::Fidelity::EXACT, false);
    const auto& p = r.phases.at(0);
    return std::vector<double>{p.step_time_s, p.compute_s, p.comm_s, p.exposed_comm_s};
  });
}
} // namespace

TEST_CASE("Overlap: bucket schedules follow their closed forms", "[sim]")
{
  // K = 4 buckets under a 10 s pass. r = 1 s <= P/K = 2.5 s: only the last bucket's reduction is exposed.
  CHECK(sim::reduction_finish_s(10, {equal_buckets(4, 1)}) == Approx(10 + 1));
  // r = 5 s > P/K: the stream is busy from the first bucket (ready at 2.5 s) on: exposed = K r - (P - P/K) = 12.5 s.
  CHECK(sim::reduction_finish_s(10, {equal_buckets(4, 5)}) - 10 == Approx(4 * 5 - (10 - 2.5)));
  // Prefetch is the mirror image: the first bucket's gather is exposed, or K r - (P - P/K).
  CHECK(sim::prefetch_finish_s(10, {equal_buckets(4, 1)}) == Approx(10 + 1));
  CHECK(sim::prefetch_finish_s(10, {equal_buckets(4, 5)}) - 10 == Approx(4 * 5 - (10 - 2.5)));
  // A tail: 350 bytes in buckets of 100 are 3 full ones and one of 50, ready when the pass has produced all 350.
  const auto b = sim::split_buckets(350, 100);
  CHECK(b.full == 3);
  CHECK(b.tail_bytes == 50);
  sim::BucketedOp tail{b, 1.0, 0.25};
  CHECK(sim::reduction_finish_s(10, {tail}) == Approx(10 + 0.25));
  CHECK(tail.total_s() == Approx(3.25));
  // One bucket holding everything: nothing overlaps, the whole reduction follows the pass.
  CHECK(sim::reduction_finish_s(10, {equal_buckets(1, 3)}) == Approx(13));
}

TEST_CASE("Overlap: GPipe's comm-free critical path is (m + pp - 1)(f + b) on uniform stages", "[sim]")
{
  CHECK(sim::gpipe_makespan_s({1, 1, 1, 1}, {2, 2, 2, 2}, 6) == Approx((6 + 4 - 1) * 3.0));
  CHECK(sim::gpipe_makespan_s({1, 1}, {1, 1}, 1) == Approx(4));
  // A slow middle stage sets the pace: fill f0, m x f1, then drain f2; backward the same way.
  CHECK(sim::gpipe_makespan_s({1, 3, 1}, {1, 3, 1}, 4) == Approx((1 + 4 * 3 + 1) + (1 + 4 * 3 + 1)));
}

TEST_CASE("Overlap: a bucketed all-reduce that fits under the backward pass is hidden but its last bucket", "[sim]")
{
  const auto topo = rdma_cluster(1, 4, 100, 5);
  const auto w    = timed_workload();
  auto s          = timed_shape(4, 1);
  s.overlap.grad_reduction = sim::GradReduction::BUCKETED;
  s.overlap.bucket_bytes   = 2ull << 20;
  const std::uint64_t bytes = 8ull << 20; // 4 buckets
  const double r = time_collective(topo, s, sim::Collective::ALL_REDUCE, s.overlap.bucket_bytes, sim::Fidelity::EXACT);
  REQUIRE(r < 0.020 / 4); // each bucket reduces faster than the backward pass produces the next
  const auto out       = run_phase(topo, w, s, sim::PhasePlan{"p", 1.0, {gradient_allreduce(bytes)}, std::nullopt});
  const double compute = 3 * (0.010 + 0.020);
  CHECK(out[1] == Approx(compute));
  CHECK(out[2] == Approx(4 * r).epsilon(1e-9));  // comm: every bucket's reduction
  CHECK(out[3] == Approx(r).epsilon(1e-9));      // exposed: the last bucket's, after the backward pass
  CHECK(out[0] == Approx(compute + r).epsilon(1e-9));
  // Without overlap the same reduction in one piece follows the backward pass, all of it exposed.
  s.overlap.grad_reduction = sim::GradReduction::NONE;
  const double whole = time_collective(topo, s, sim::Collective::ALL_REDUCE, bytes, sim::Fidelity::EXACT);
  const auto none    = run_phase(topo, w, s, sim::PhasePlan{"p", 1.0, {gradient_allreduce(bytes)}, std::nullopt});
  CHECK(none[2] == Approx(whole).epsilon(1e-9));
  CHECK(none[3] == Approx(whole).epsilon(1e-9));
  CHECK(none[0] == Approx(compute + whole).epsilon(1e-9));
}

TEST_CASE("Overlap: a bucketed all-reduce slower than the backward pass is exposed by exactly the difference", "[sim]")
{
  const auto topo = rdma_cluster(1, 4, 1, 5); // 1 Gb/s: each 2 MiB bucket takes about 25 ms
  const auto w    = timed_workload();
  auto s          = timed_shape(4, 1);
  s.overlap.grad_reduction = sim::GradReduction::BUCKETED;
  s.overlap.bucket_bytes   = 2ull << 20;
  const double r = time_collective(topo, s, sim::Collective::ALL_REDUCE, s.overlap.bucket_bytes, sim::Fidelity::EXACT);
  REQUIRE(r > 0.020 / 4);
  const auto out = run_phase(topo, w, s, sim::PhasePlan{"p", 1.0, {gradient_allreduce(8ull << 20)}, std::nullopt});
  // The first bucket is ready a quarter into the last backward pass; from then on the stream never idles, so what
  // the pass cannot hide is the reductions' total minus the rest of the pass: 4 r - (b - b/4).
  const double b = 0.020;
  CHECK(out[2] == Approx(4 * r).epsilon(1e-9));
  CHECK(out[3] == Approx(4 * r - (b - b / 4)).epsilon(1e-9));
  CHECK(out[0] == Approx(3 * 0.030 + 4 * r - (b - b / 4)).epsilon(1e-9));
}

TEST_CASE("Overlap: a prefetched weight all-gather hides under the first forward pass but its first bucket", "[sim]")
{
  const auto topo = rdma_cluster(1, 4, 100, 5);
  const auto w    = timed_workload();
  auto s          = timed_shape(4, 1);
  s.overlap.param_prefetch = true;
  s.overlap.bucket_bytes   = 1ull << 20;
  sim::CommOp gather{"all-gather weights", sim::Collective::ALL_GATHER, sim::GroupKind::DATA_PARALLEL, 4ull << 20};
  gather.synchronisation  = false;
  gather.prefetch_forward = true;
  const double r = time_collective(topo, s, sim::Collective::ALL_GATHER, s.overlap.bucket_bytes, sim::Fidelity::EXACT);
  REQUIRE(r < 0.010 / 4);
  const auto out = run_phase(topo, w, s, sim::PhasePlan{"p", 1.0, {gather}, std::nullopt});
  CHECK(out[2] == Approx(4 * r).epsilon(1e-9));
  CHECK(out[3] == Approx(r).epsilon(1e-9));
  CHECK(out[0] == Approx(3 * 0.030 + r).epsilon(1e-9));
}

TEST_CASE("Overlap: tensor-parallel communication stays on the critical path", "[sim]")
{
  // 4 nodes x 2 GPUs, tp 2 inside a node, dp 4: the tensor-parallel all-reduce is never flagged, so with bucketed
  // gradient reduction it is still exposed in full, beside the last gradient bucket.
  const auto topo = rdma_cluster(2, 4, 100, 5);
  const auto w    = timed_workload();
  auto s          = timed_shape(8, 2, 2);
  s.overlap.grad_reduction = sim::GradReduction::BUCKETED;
  s.overlap.bucket_bytes   = 2ull << 20;
  sim::CommOp tp{"tensor-parallel activations", sim::Collective::ALL_REDUCE, sim::GroupKind::TENSOR_PARALLEL, 6ull << 20};
  tp.synchronisation = false;
  const double t_tp = time_collective(topo, s, sim::Collective::ALL_REDUCE, tp.bytes, sim::Fidelity::EXACT,
                                      sim::Algo::AUTO, sim::GroupKind::TENSOR_PARALLEL);
  const double r = time_collective(topo, s, sim::Collective::ALL_REDUCE, s.overlap.bucket_bytes, sim::Fidelity::EXACT);
  REQUIRE(r < 0.020 / 4);
  const auto out = run_phase(topo, w, s, sim::PhasePlan{"p", 1.0, {tp, gradient_allreduce(8ull << 20)}, std::nullopt});
  CHECK(out[2] == Approx(t_tp + 4 * r).epsilon(1e-9));
  CHECK(out[3] == Approx(t_tp + r).epsilon(1e-9));
  CHECK(out[3] >= t_tp);
}

TEST_CASE("Overlap: a pipeline's bubble is not exposed communication", "[sim]")
{
  // GPipe, pp 4, m 6, tiny messages: the step is (m + pp - 1)(f + b), its bubble 3 x 40 ms; exposed comm is only
  // the messages' latency, never more than their time in flight.
  const auto topo = rdma_cluster(1, 4, 100, 0.001, 10000, 0.001);
  const auto out = run_phase(topo, stage_workload(4, 0.010, 0.030), pipeline_shape(4, 1, 6),
                             sim::PhasePlan{"pipe", 1.0, {}, sim::PipelineComm{1, 1, {}}});
  CHECK(out[0] == Approx(9 * 0.040).epsilon(1e-4));
  CHECK(out[3] <= out[2]);
  CHECK(out[3] < 1e-4);
  // Sends slower than compute (2 stages, m 4, 0.1 s per message): exposed is the step beyond its comm-free
  // (m + 1)(f + b), and still no more than the 8 messages' time.
  const auto slow = rdma_cluster(1, 2, 1, 0.001, 10000, 0.001);
  const auto o2   = run_phase(slow, stage_workload(2, 0.001, 0.001), pipeline_shape(2, 1, 4),
                              sim::PhasePlan{"pipe", 1.0, {}, sim::PipelineComm{12500000, 12500000, {}}});
  CHECK(o2[3] == Approx(o2[0] - 5 * 0.002).epsilon(1e-9));
  CHECK(o2[3] <= o2[2]);
}

TEST_CASE("Overlap: a pipeline's bucketed gradient reduction hides under the last backward pass", "[sim]")
{
  // 2 stages x dp 2 on 4 nodes: after the flush, the data-parallel all-reduce of each stage's gradients. Bucketed,
  // only its last bucket follows the pipeline; without overlap all of it does.
  const auto topo = rdma_cluster(1, 4, 100, 0.001, 10000, 0.001);
  const auto w    = stage_workload(2, 0.010, 0.030);
  auto s          = pipeline_shape(2, 2, 4);
  s.overlap.bucket_bytes = 1ull << 20;
  const auto phase  = sim::PhasePlan{"pipe", 1.0, {gradient_allreduce(4ull << 20)}, sim::PipelineComm{1, 1, {}}};
  const auto none   = run_phase(topo, w, s, phase);
  s.overlap.grad_reduction = sim::GradReduction::BUCKETED;
  const auto hidden = run_phase(topo, w, s, phase);
  const double r     = time_collective(topo, s, sim::Collective::ALL_REDUCE, 1ull << 20, sim::Fidelity::EXACT);
  const double whole = time_collective(topo, s, sim::Collective::ALL_REDUCE, 4ull << 20, sim::Fidelity::EXACT);
  REQUIRE(r < 0.030 / 4);
  CHECK(none[0] - hidden[0] == Approx(whole - r).epsilon(1e-6));
  CHECK(hidden[3] - none[3] == Approx(r - whole).epsilon(1e-6));
  CHECK(hidden[3] <= hidden[2]);
}

TEST_CASE("Overlap: activation recomputation adds one forward pass per micro-batch", "[sim]")
{
  const auto topo = rdma_cluster(1, 4, 100, 5);
  const auto w    = timed_workload();
  auto s          = timed_shape(4, 1);
  const auto phase = sim::PhasePlan{"p", 1.0, {gradient_allreduce(1ull << 20)}, std::nullopt};
  const auto plain = run_phase(topo, w, s, phase);
  s.recompute = sim::Recompute::FULL;
  const auto again = run_phase(topo, w, s, phase);
  CHECK(again[1] - plain[1] == Approx(3 * 0.010).epsilon(1e-12)); // micro-batches x forward
  CHECK(again[0] - plain[0] == Approx(3 * 0.010).epsilon(1e-9));
}

TEST_CASE("Overlap: ZeRO-3's per-layer schedule follows its closed forms", "[sim]")
{
  // L = 4 layers of c = 2.5 s under a 10 s pass (sim/layout/OverlapSchedule.hpp, layered_pass_s).
  // Gathers only, g = 1 <= c: layer 0's gather is exposed, the rest prefetched one layer ahead: 10 + 1.
  CHECK(sim::layered_pass_s(10, 4, 1, 0) == Approx(11));
  // g = 4 > c: each layer waits for its gather; the last starts at L g and computes c: 4 x 4 + 2.5.
  CHECK(sim::layered_pass_s(10, 4, 4, 0) == Approx(18.5));
  // Reductions only, r = 1 <= c: the last layer's reduction follows the pass: 10 + 1.
  CHECK(sim::layered_pass_s(10, 4, 0, 1) == Approx(11));
  // Both, g + r = 2 <= c: the first gather before and the last reduction after the pass are exposed: 10 + 1 + 1.
  CHECK(sim::layered_pass_s(10, 4, 1, 1) == Approx(12));
  // One layer: nothing to prefetch: g + c + r.
  CHECK(sim::layered_pass_s(10, 1, 3, 2) == Approx(15));
}

TEST_CASE("Overlap: ZeRO-3 gathers every micro-batch's weights per layer in forward and backward", "[sim]")
{
  // 4 nodes x 1 GPU at 100 Gb/s, 4 layers, 3 micro-batches of 10 ms forward and 20 ms backward. Each pass gathers
  // 4 MiB of weights in 4 layer buckets of 1 MiB (g each); the backward also reduce-scatters 4 MiB per layer (r).
  const auto topo = rdma_cluster(1, 4, 100, 5);
  const auto w    = timed_workload();
  auto s          = timed_shape(4, 1);
  s.layers        = 4;
  const std::uint64_t bytes = 4ull << 20;
  auto op = [&](sim::Collective c, sim::LayerPass pass) {
    sim::CommOp o{"zero3", c, sim::GroupKind::DATA_PARALLEL, bytes};
    o.synchronisation = c == sim::Collective::REDUCE_SCATTER;
    o.per_layer       = pass;
    return o;
  };
  const double g = time_collective(topo, s, sim::Collective::ALL_GATHER, 1ull << 20, sim::Fidelity::EXACT);
  const double r = time_collective(topo, s, sim::Collective::REDUCE_SCATTER, 1ull << 20, sim::Fidelity::EXACT);
  REQUIRE(g < 0.010 / 4);     // a layer's gather is faster than its forward
  REQUIRE(g + r < 0.020 / 4); // and gather plus reduction faster than its backward
  const auto out = run_phase(topo, w, s,
                             sim::PhasePlan{"p",
                                            1.0,
                                            {op(sim::Collective::ALL_GATHER, sim::LayerPass::FORWARD),
                                             op(sim::Collective::ALL_GATHER, sim::LayerPass::BACKWARD),
                                             op(sim::Collective::REDUCE_SCATTER, sim::LayerPass::BACKWARD)},
                                            std::nullopt});
  const double compute = 3 * (0.010 + 0.020);
  CHECK(out[1] == Approx(compute));
  CHECK(out[2] == Approx(3 * (4 * g + 4 * g + 4 * r)).epsilon(1e-9)); // comm: every bucket of every micro-batch
  // Exposed per micro-batch: the first layer's gather before each pass, the last layer's reduction after backward.
  CHECK(out[3] == Approx(3 * (g + g + r)).epsilon(1e-9));
  CHECK(out[0] == Approx(compute + 3 * (2 * g + r)).epsilon(1e-9));
}

TEST_CASE("Overlap: ZeRO-3 gathers slower than a layer's forward are exposed layer by layer", "[sim]")
{
  const auto topo = rdma_cluster(1, 4, 1, 5); // 1 Gb/s: a 1 MiB layer gathers in about 6 ms, over 2.5 ms of compute
  const auto w    = timed_workload();
  auto s          = timed_shape(4, 1);
  s.layers        = 4;
  sim::CommOp gather{"zero3", sim::Collective::ALL_GATHER, sim::GroupKind::DATA_PARALLEL, 4ull << 20};
  gather.synchronisation = false;
  gather.per_layer       = sim::LayerPass::FORWARD;
  const double g = time_collective(topo, s, sim::Collective::ALL_GATHER, 1ull << 20, sim::Fidelity::EXACT);
  REQUIRE(g > 0.010 / 4);
  const auto out = run_phase(topo, w, s, sim::PhasePlan{"p", 1.0, {gather}, std::nullopt});
  // Each forward pass ends at L g + c instead of L c: exposed 4 g + 2.5 ms - 10 ms per micro-batch, 3 of them.
  CHECK(out[3] == Approx(3 * (4 * g + 0.0025 - 0.010)).epsilon(1e-9));
  CHECK(out[2] == Approx(3 * 4 * g).epsilon(1e-9));
}
