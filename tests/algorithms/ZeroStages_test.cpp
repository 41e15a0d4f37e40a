// ZeRO stages of the sharded plans (issue 41), worked by hand: what each stage sends per step, the per-layer gathers
// of stage 3 and ZeRO++'s hpZ, the stages each descriptor supports, and the memory per GPU by stage.
#include "algorithms/MemoryFootprint.hpp"
#include "algorithms/PlanAlgorithm.hpp"
#include "algorithms/Registry.hpp"
#include "io/JsonInput.hpp"
#include "numerics/QuantizedSizes.hpp"
#include "tests/support/CommOps.hpp"

#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

using namespace ccsim;

namespace {
/// 48 layers of 1,000,000 parameters on dp 32 = 4 nodes x 8, bf16 gradients, `m` micro-batches.
sim::StepShape shape(int stage, int m = 1)
{
  sim::StepShape s;
  s.params = s.params_per_rank = 48000000;
  s.gpus = s.dp = 32;
  s.gpus_per_node = s.dp_per_node = 8;
  s.nodes = 4;
  s.micro_batch = 1, s.grad_accumulation = m, s.global_batch = 32ull * static_cast<std::uint64_t>(m);
  s.seq_len = 1024, s.hidden = 1600, s.layers = 48, s.grad_bytes = 2;
  s.zero_stage = stage;
  return s;
}

sim::PhasePlan phase_of(const std::string& name, const sim::StepShape& s)
{
  const auto* a = algorithms::find_plan_algorithm(name);
  REQUIRE(a != nullptr);
  const auto plan = a->plan(s, algorithms::default_params(*a));
  REQUIRE(plan.phases.size() == 1);
  return plan.phases.front();
}

/// Bytes one rank sends over the step in the ring schedule of each collective: (dp - 1) / dp of the buffer for an
/// all-gather or a reduce-scatter over `group` ranks (nccl-tests doc/PERFORMANCE.md), every run of a per-layer op.
double sent_per_rank(const sim::CommOp& op, const sim::StepShape& s)
{
  const double n    = op.group == sim::GroupKind::DP_INTRA_NODE ? s.dp_per_node : s.dp;
  const double runs = op.per_layer == sim::LayerPass::NONE ? 1 : s.grad_accumulation;
  return runs * static_cast<double>(op.bytes) * (n - 1) / n;
}

double step_bytes(const sim::PhasePlan& phase, const sim::StepShape& s)
{
  double total = 0;
  for (const auto& op : test::comm_ops(phase))
    total += sent_per_rank(op, s);
  return total;
}
} // namespace

TEST_CASE("ZeroStages: stage 3 sends 3 x parameters x (dp - 1) / dp per micro-batch", "[algorithms]")
{
  // megatron-dp at stage 3 (FSDP full_shard): each micro-batch gathers the bf16 weights before the forward and again
  // before the backward, and reduce-scatters the bf16 gradients: 3 x P x 2 bytes x (dp - 1) / dp per micro-batch,
  // P = 48,000,000, dp = 32: 3 x 48e6 x 2 x 31 / 32 = 279,000,000 bytes; 4 micro-batches send 4 times that.
  const auto s1 = shape(3, 1);
  CHECK(step_bytes(phase_of("megatron-dp", s1), s1) == 279000000.0);
  const auto s4 = shape(3, 4);
  const auto p4 = phase_of("megatron-dp", s4);
  CHECK(step_bytes(p4, s4) == 4 * 279000000.0);
  // Every one of the three runs layer by layer; none after the optimizer step (the weights stay sharded).
  const auto ops = test::comm_ops(p4);
  REQUIRE(ops.size() == 3);
  CHECK(ops[0].per_layer == sim::LayerPass::FORWARD);
  CHECK(ops[0].collective == sim::Collective::ALL_GATHER);
  CHECK(ops[1].per_layer == sim::LayerPass::BACKWARD);
  CHECK(ops[1].collective == sim::Collective::ALL_GATHER);
  CHECK(ops[2].per_layer == sim::LayerPass::BACKWARD);
  CHECK(ops[2].collective == sim::Collective::REDUCE_SCATTER);
  CHECK(ops[2].synchronisation);
}

TEST_CASE("ZeroStages: stage 1 is Megatron's distributed optimizer, stage 2 reduces every micro-batch", "[algorithms]")
{
  // Stage 1 (the default): one fp32 reduce-scatter (4 bytes) and one bf16 all-gather (2 bytes) per step, whatever
  // the accumulation: 48e6 x 6 x 31 / 32 = 279,000,000 bytes. Stage 2 reduce-scatters all 4 micro-batches' fp32
  // gradients: 48e6 x (4 x 4 + 2) x 31 / 32 = 837,000,000 bytes.
  CHECK(step_bytes(phase_of("megatron-dp", shape(1, 4)), shape(1, 4)) == 279000000.0);
  CHECK(step_bytes(phase_of("megatron-dp", shape(2, 4)), shape(2, 4)) == 837000000.0);
}

TEST_CASE("ZeroStages: ZeRO++ at stage 3 gathers int8 forward and inside the node backward (hpZ)", "[algorithms]")
{
  // qwZ: int8 codes and an fp32 scale per block of 8000 values (ZeRO++ §3.1, partition_parameters.py); hpZ: the
  // backward gathers the bf16 secondary partition among the node's 8 ranks (ZeRO++ §3.2); qgZ's 4-bit all-to-alls
  // follow each micro-batch's backward, not layer by layer.
  const auto s   = shape(3, 1);
  const auto ops = test::comm_ops(phase_of("zeropp", s));
  REQUIRE(ops.size() == 4);
  CHECK(ops[0].per_layer == sim::LayerPass::FORWARD);
  CHECK(ops[0].group == sim::GroupKind::DATA_PARALLEL);
  CHECK(ops[0].bytes == 48000000 + 4 * (48000000 / 8000));
  CHECK(ops[1].per_layer == sim::LayerPass::BACKWARD);
  CHECK(ops[1].group == sim::GroupKind::DP_INTRA_NODE);
  CHECK(ops[1].bytes == 2 * 48000000ull);
  CHECK(ops[2].collective == sim::Collective::ALL_TO_ALL);
  CHECK(ops[2].per_layer == sim::LayerPass::NONE);
  CHECK(ops[3].group == sim::GroupKind::DP_INTER_NODE);
}

TEST_CASE("ZeroStages: each algorithm names the stages it runs, qWD not stage 3", "[algorithms]")
{
  CHECK(algorithms::algorithm_named("megatron-dp").zero_stages == std::vector<int>{1, 2, 3});
  CHECK(algorithms::algorithm_named("megatron-dp").default_zero_stage() == 1);
  CHECK(algorithms::algorithm_named("zeropp").supports_zero_stage(3));
  CHECK_FALSE(algorithms::algorithm_named("sdp4bit").supports_zero_stage(3));
  CHECK_FALSE(algorithms::algorithm_named("qwd").supports_zero_stage(3));
  CHECK(algorithms::algorithm_named("adam").default_zero_stage() == 0);
  CHECK_FALSE(algorithms::algorithm_named("onebit-adam").supports_zero_stage(1));
  // The plan refuses it too, for a caller that does not ask the descriptor.
  const auto* qwd = algorithms::find_plan_algorithm("qwd");
  CHECK_THROWS_AS(qwd->plan(shape(3), algorithms::default_params(*qwd)), std::invalid_argument);
}

TEST_CASE("ZeroStages: memory per GPU follows the stage", "[algorithms]")
{
  // Llama-3-8B, P = 8,030,261,248 over 32 layers, dp 32, tp 1. Stage 1: bf16 weights 2P, fp32 gradients 4P,
  // optimizer 12P / 32. Stage 2: gradients 4P / 32. Stage 3: weights 2P / 32 plus two layers gathered (the one
  // computing and the next being prefetched: 2 x 2P / 32 layers), gradients 4P / 32 plus one layer's bf16
  // gradients before their reduce-scatter (2P / 32 layers).
  const auto w  = sim::load_workload(io::resolve_preset("workloads", "llama3-8b", "--workload"));
  const double p = 8030261248.0;
  REQUIRE(w.params == p);
  REQUIRE(w.layers == 32);
  auto s            = shape(1);
  s.params = s.params_per_rank = w.params;
  s.layers          = w.layers;
  s.seq_len         = w.seq_len;
  s.grad_bytes      = 2;
  const auto* mdp   = algorithms::find_plan_algorithm("megatron-dp");
  const auto m1     = algorithms::memory_footprint(*mdp, w, s);
  CHECK(m1.weights_bytes == 2 * p);
  CHECK(m1.gradients_bytes == 4 * p);
  s.zero_stage  = 2;
  const auto m2 = algorithms::memory_footprint(*mdp, w, s);
  CHECK(m2.gradients_bytes == Approx(4 * p / 32).epsilon(1e-15));
  s.zero_stage  = 3;
  const auto m3 = algorithms::memory_footprint(*mdp, w, s);
  CHECK(m3.weights_bytes == Approx(2 * p / 32 + 4 * p / 32).epsilon(1e-15));
  CHECK(m3.gradients_bytes == Approx(4 * p / 32 + 2 * p / 32).epsilon(1e-15));
  CHECK(m3.optimizer_bytes == Approx(12 * p / 32).epsilon(1e-15));
  // ZeRO++'s hpZ adds its secondary bf16 partition over the node's 8 data-parallel ranks: 2P / 8.
  const auto mz = algorithms::memory_footprint(*algorithms::find_plan_algorithm("zeropp"), w, s);
  CHECK(mz.compression_bytes == Approx(2 * p / 8).epsilon(1e-15));
}
