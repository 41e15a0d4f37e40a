// Communication plans against hand-derived byte counts: every expected number below is worked out in the
// comment from the paper's message format (and the reference implementation's padding), not read from a run.
#include "algorithms/PlanAlgorithm.hpp"
#include "tests/support/CommOps.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace ccsim;

namespace {
sim::StepShape shape(std::uint64_t params, int dp, int dp_per_node)
{
  sim::StepShape s;
  s.params = s.params_per_rank = params;
  s.gpus = s.dp = dp;
  s.gpus_per_node = s.dp_per_node = dp_per_node;
  s.nodes = dp / dp_per_node;
  s.global_batch = 64, s.micro_batch = 1, s.grad_accumulation = 1;
  s.seq_len = 1024, s.hidden = 1600, s.layers = 48, s.grad_bytes = 2;
  return s;
}

const sim::PhasePlan& phase_named(const sim::StepPlan& plan, const std::string& name)
{
  for (const auto& ph : plan.phases)
    if (ph.name == name)
      return ph;
  FAIL("no phase " << name);
  return plan.phases.front();
}
} // namespace

using test::plan_of;

TEST_CASE("PlanBytes: every docs/design/DESIGN.md algorithm is registered", "[algorithms]")
{
  for (const char* name : {"adam", "lamb", "onebit-adam", "onebit-lamb", "slamb", "megatron-dp", "zeropp", "sdp4bit",
                           "qwd", "tlq", "tlq-hs", "fp32-pipeline", "directq", "aq-sgd", "naive-1bit-adam",
                           "lamb-basic-1bit", "topk-lamb", "randk-lamb"}) {
    INFO(name);
    CHECK(algorithms::find_plan_algorithm(name) != nullptr);
  }
}

TEST_CASE("PlanBytes: phase fractions of every algorithm sum to one", "[algorithms]")
{
  for (const auto* a : algorithms::plan_algorithms()) {
    INFO(a->name());
    double sum = 0;
    for (const auto& ph : plan_of(a->name(), shape(1000000, 16, 8)).phases)
      sum += ph.fraction;
    CHECK(sum == Approx(1.0).epsilon(1e-12));
  }
}

TEST_CASE("PlanBytes: with pp > 1 every phase of a non-pipeline algorithm runs its micro-batches through the stages",
          "[algorithms]")
{
  // Megatron's pipeline boundary carries one micro-batch's bf16 activations forward and their gradients back:
  // micro_batch x seq x hidden x 2 bytes = 2 x 1024 x 1600 x 2 = 6,553,600 bytes with micro-batch 2 (shape() above).
  auto s        = shape(1000000, 16, 8);
  s.micro_batch = 2;
  for (const auto* a : algorithms::plan_algorithms()) {
    if (a->parallelism() == algorithms::Parallelism::PIPELINE)
      continue;
    INFO(a->name());
    for (const auto& ph : plan_of(a->name(), s).phases)
      CHECK_FALSE(ph.pipeline.has_value()); // pp = 1: no pipeline
    s.pp = 4;
    for (const auto& ph : plan_of(a->name(), s).phases) {
      REQUIRE(ph.pipeline.has_value());
      CHECK(ph.pipeline->forward_bytes_per_micro_batch == 6553600u);
      CHECK(ph.pipeline->backward_bytes_per_micro_batch == 6553600u);
      CHECK(ph.pipeline->kernels_per_micro_batch.empty());
    }
    s.pp = 1;
  }
}

TEST_CASE("PlanBytes: adam all-reduces the fp16 gradient buffer", "[algorithms]")
{
  // 1000 parameters x 2 bytes (fp16, the workload's recipe) = 2000 bytes; --param grad_bytes=4 gives fp32.
  const auto plan = plan_of("adam", shape(1000, 4, 4));
  REQUIRE(plan.phases.size() == 1);
  const auto c = test::comm_ops(plan.phases[0]);
  REQUIRE(c.size() == 1);
  CHECK(c[0].collective == sim::Collective::ALL_REDUCE);
  CHECK(c[0].bytes == 2000);
  CHECK(test::comm_ops(plan_of("adam", shape(1000, 4, 4), {{"grad_bytes", 4}}).phases[0])[0].bytes == 4000);
}

TEST_CASE("PlanBytes: onebit-adam pads to W lcm of W and 8 and sends one bit per value", "[algorithms]")
{
  // DeepSpeed fp16/onebit/adam.py pads to a multiple of W·lcm(W, 8). W = 3: lcm = 24, multiple of 72;
  // 1000 -> 1008 (72 x 14). Signs: 1008 / 8 = 126 bytes in the all-to-all and 126 in the server all-gather;
  // scales: one fp32 per rank = 12 bytes; the compress kernel reads the fp32 padded buffer, 4 x 1008 bytes.
  const auto plan = plan_of("onebit-adam", shape(1000, 3, 3));
  REQUIRE(plan.phases.size() == 2);
  const auto& warm = phase_named(plan, "warmup");
  CHECK(warm.fraction == Approx(0.15)); // default freeze at 15 % of training (DeepSpeed 1-bit Adam tutorial)
  CHECK(test::comm_ops(warm)[0].bytes == 2000);  // uncompressed fp16 all-reduce
  const auto& comp = phase_named(plan, "compressed");
  std::uint64_t a2a = 0, gathered = 0, kernel_in = 0;
  for (const auto& op : comp.ops) {
    if (const auto* c = std::get_if<sim::CommOp>(&op)) {
      if (c->collective == sim::Collective::ALL_TO_ALL)
        a2a += c->bytes;
      else if (c->collective == sim::Collective::ALL_GATHER)
        gathered += c->bytes;
      else
        FAIL("unexpected collective in the compressed stage");
    } else if (const auto* k = std::get_if<sim::KernelOp>(&op); k && kernel_in == 0) {
      kernel_in = k->bytes;
    }
  }
  CHECK(a2a == 126);
  CHECK(gathered == 12 + 126 + 12); // worker scales, server signs, server scales
  CHECK(kernel_in == 4 * 1008);
}

TEST_CASE("PlanBytes: naive-1bit-adam compresses from the first step", "[algorithms]")
{
  // The naive baseline (1-bit Adam §3, error-compensated 1-bit gradients) has no warm-up phase.
  const auto plan = plan_of("naive-1bit-adam", shape(1000, 4, 4));
  REQUIRE(plan.phases.size() == 1);
  CHECK(plan.phases[0].fraction == 1.0);
}

TEST_CASE("PlanBytes: slamb sends k P values every step and the model every H steps", "[algorithms]")
{
  // P = 1e6, k = 0.1, H = 100, fp16: sparse all-reduce 1e5 x 2 = 200000 bytes on every step; the sync step adds
  // the 2e6-byte model average. Per step 0.99 x 2e5 + 0.01 x 2.2e6 = 2.2e5 bytes vs LAMB's 2e6: 9.09x
  // = 1 / (k + 1/H) (SLAMB §5.1).
  const auto plan  = plan_of("slamb", shape(1000000, 8, 8));
  const auto& sp   = phase_named(plan, "sparse");
  const auto& sync = phase_named(plan, "sync");
  CHECK(sp.fraction == Approx(0.99));
  CHECK(sync.fraction == Approx(0.01));
  REQUIRE(test::comm_ops(sp).size() == 1);
  CHECK(test::comm_ops(sp)[0].bytes == 200000);
  REQUIRE(test::comm_ops(sync).size() == 2);
  CHECK(test::comm_ops(sync)[0].bytes + test::comm_ops(sync)[1].bytes == 2200000);
  const double per_step = sp.fraction * 200000 + sync.fraction * 2200000;
  CHECK(2000000 / per_step == Approx(1 / (0.1 + 0.01)).epsilon(1e-9));
}

TEST_CASE("PlanBytes: topk-lamb all-gathers values with int32 indices", "[algorithms]")
{
  // Each worker's own top-k differs, so (fp16 value, int32 index) pairs travel: 1e5 x 6 bytes per worker,
  // 8 workers' worth in the all-gather output = 4.8e6 bytes.
  const auto c = test::comm_ops(plan_of("topk-lamb", shape(1000000, 8, 8)).phases[0]);
  REQUIRE(c.size() == 1);
  CHECK(c[0].collective == sim::Collective::ALL_GATHER);
  CHECK(c[0].bytes == 4800000);
}

TEST_CASE("PlanBytes: sdp4bit sends 4-bit weight differences and 8 then 4-bit gradients", "[algorithms]")
{
  // n = 2,048,000 values, 16 DP ranks, 8 per node.
  // qWD (SDP4Bit §4.1): n/2 = 1,024,000 code bytes + n/2048 = 1000 fp32 scales = 1,028,000 bytes.
  // TLq-HS (§4.2): intra-node 8-bit g128: 2,048,000 + 16,000 x 4 = 2,112,000 bytes; inter-node the 1/8 share
  // (256,000 values) at 4 bits: 128,000 + 2000 x 4 = 136,000 bytes.
  const auto c = test::comm_ops(plan_of("sdp4bit", shape(2048000, 16, 8)).phases[0]);
  std::uint64_t weights = 0, intra = 0, inter = 0;
  for (const auto& op : c) {
    if (op.collective == sim::Collective::ALL_GATHER)
      weights = op.bytes;
    else if (op.group == sim::GroupKind::DP_INTRA_NODE)
      intra = op.bytes;
    else if (op.group == sim::GroupKind::DP_INTER_NODE)
      inter = op.bytes;
  }
  CHECK(weights == 1028000);
  CHECK(intra == 2112000);
  CHECK(inter == 136000);
  // Against megatron-dp's bf16 weights (4,096,000 bytes): 3.98x, SDP4Bit's "about 4x" for weights.
  CHECK(4096000.0 / weights == Approx(4.0).epsilon(0.01));
}

TEST_CASE("PlanBytes: tlq with one DP rank per node sends the whole buffer at 4 bits across nodes", "[algorithms]")
{
  // TP = GPUs per node leaves one DP rank per node (issue 5): the intra-node stage has no peers, so the
  // inter-node all-to-all carries all n = 2,048,000 values at 4 bits: 1,024,000 + 16,000 x 4 = 1,088,000 bytes.
  const auto c = test::comm_ops(plan_of("tlq", shape(2048000, 4, 1)).phases[0]);
  std::uint64_t inter = 0;
  for (const auto& op : c)
    if (op.group == sim::GroupKind::DP_INTER_NODE)
      inter = op.bytes;
  CHECK(inter == 1088000);
}

TEST_CASE("PlanBytes: megatron-dp reduce-scatters fp32 gradients and all-gathers bf16 weights", "[algorithms]")
{
  // 1e6 params: fp32 gradients 4e6 bytes in the reduce-scatter, bf16 weights 2e6 in the all-gather.
  const auto c = test::comm_ops(plan_of("megatron-dp", shape(1000000, 16, 8)).phases[0]);
  REQUIRE(c.size() == 2);
  CHECK(c[0].collective == sim::Collective::REDUCE_SCATTER);
  CHECK(c[0].bytes == 4000000);
  CHECK(c[1].collective == sim::Collective::ALL_GATHER);
  CHECK(c[1].bytes == 2000000);
}

TEST_CASE("PlanBytes: aq-sgd sends B S H bits over 8 plus one fp16 scale per channel", "[algorithms]")
{
  // Micro-batch 1, seq 1024, hidden 1600 (GPT2-XL): forward 4 bits: 1024 x 1600 / 2 = 819,200 + 1600 x 2 = 822,400
  // bytes; backward 8 bits: 1,638,400 + 3,200 = 1,641,600. First epoch (AQ-SGD §4) fp32: 4 x 1024 x 1600 =
  // 6,553,600 each way.
  const auto plan   = plan_of("aq-sgd", shape(1000000, 1, 1));
  const auto& first = phase_named(plan, "first-epoch");
  const auto& comp  = phase_named(plan, "compressed");
  REQUIRE(first.pipeline);
  REQUIRE(comp.pipeline);
  CHECK(first.pipeline->forward_bytes_per_micro_batch == 6553600);
  CHECK(first.pipeline->backward_bytes_per_micro_batch == 6553600);
  CHECK(comp.pipeline->forward_bytes_per_micro_batch == 822400);
  CHECK(comp.pipeline->backward_bytes_per_micro_batch == 1641600);
  // fw3 bw6 (Table 2's other setting): 614,400 + 3,200 = 617,600 and 1,228,800 + 3,200 = 1,232,000.
  const auto p36 = plan_of("aq-sgd", shape(1000000, 1, 1), {{"fw_bits", 3}, {"bw_bits", 6}});
  CHECK(phase_named(p36, "compressed").pipeline->forward_bytes_per_micro_batch == 617600);
  CHECK(phase_named(p36, "compressed").pipeline->backward_bytes_per_micro_batch == 1232000);
}

TEST_CASE("PlanBytes: directq has no uncompressed phase", "[algorithms]")
{
  const auto plan = plan_of("directq", shape(1000000, 1, 1));
  REQUIRE(plan.phases.size() == 1);
  CHECK(plan.phases[0].pipeline->forward_bytes_per_micro_batch == 822400);
}
