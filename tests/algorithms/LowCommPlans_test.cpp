// The low-communication plans (issue 47) against hand-derived sizes: PowerSGD's factors and DeMo's DCT top-k from
// the model's matrices,
// and DiLoCo's outer all-reduce amortised over H inner steps (its "H = 500 times less communication", DiLoCo Table 2).
#include "algorithms/PlanAlgorithm.hpp"
#include "algorithms/lowcomm/DemoPlan.hpp"
#include "algorithms/lowcomm/PowerSgdPlan.hpp"
#include "tests/support/CommOps.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace ccsim;

namespace {
/// 24 GPT layers of hidden 1024 (12·1024² + 13·1024 = 12,596,224 values each) plus a 50,000 x 1024 embedding.
sim::StepShape gpt_shape(int dp)
{
  sim::StepShape s;
  s.hidden = 1024, s.layers = 24, s.seq_len = 1024;
  s.params = s.params_per_rank = 24ull * (12ull * 1024 * 1024 + 13ull * 1024) + 50000ull * 1024;
  s.gpus = s.dp = dp;
  s.gpus_per_node = s.dp_per_node = 1;
  s.nodes = dp;
  s.global_batch = 64, s.micro_batch = 1, s.grad_accumulation = 64 / dp;
  s.grad_bytes = 2;
  return s;
}

std::uint64_t bytes_of(const sim::PhasePlan& phase, const std::string& label)
{
  for (const auto& c : test::comm_ops(phase))
    if (c.label == label)
      return c.bytes;
  FAIL("no collective " << label);
  return 0;
}
} // namespace

using test::plan_of;

TEST_CASE("PowerSGD's factors of GPT layers are 16h·r values a layer and the embedding's (V + h)·r", "[algorithms]")
{
  // Per layer at rank 2: QKV 3072 x 1024 -> P 6144, Q 2048; projection 1024 x 1024 -> 2048, 2048; fc1 4096 x 1024
  // -> 8192, 2048; fc2 1024 x 4096 -> 2048, 8192: P 18,432 and Q 14,336 (16h·r = 32,768), biases and norms 13h =
  // 13,312 whole. The rest, 50,000 x 1024 (the embedding), -> P 100,000, Q 2048.
  const auto split = algorithms::low_rank_split(gpt_shape(16), 2);
  CHECK(split.p == Approx(24 * 18432.0 + 100000));
  CHECK(split.q == Approx(24 * 14336.0 + 2048));
  CHECK(split.uncompressed == Approx(24 * 13312.0));
  CHECK(split.covered == Approx(static_cast<double>(gpt_shape(16).params_per_rank)));
}

TEST_CASE("PowerSGD's plan all-reduces the factors and the whole tensors in the gradient's bytes", "[algorithms]")
{
  const auto plan = plan_of("powersgd", gpt_shape(16));
  REQUIRE(plan.phases.size() == 1);
  const auto& phase = plan.phases[0];
  CHECK(bytes_of(phase, "allreduce P factors") == 2 * (24 * 18432u + 100000u));
  CHECK(bytes_of(phase, "allreduce Q factors") == 2 * (24 * 14336u + 2048u));
  CHECK(bytes_of(phase, "allreduce uncompressed tensors") == 2 * 24 * 13312u);
  // Rank 4 doubles the factors; the whole tensors stay.
  const auto r4 = plan_of("powersgd", gpt_shape(16), {{"rank", 4}});
  CHECK(bytes_of(r4.phases[0], "allreduce P factors") == 4 * (24 * 18432u + 100000u));
}

TEST_CASE("PowerSGD's split with tensor parallelism and a GQA architecture follows Megatron's matrices",
          "[algorithms]")
{
  // Llama-3-8B's layer at tp 2: fused QKV (4096 + 2·1024)/2 x 4096 = 3072 x 4096; projection 4096 x 2048; fused
  // gate+up 2·14336/2 x 4096 = 14336 x 4096; down 4096 x 7168. At rank 1: P 3072 + 4096 + 14336 + 4096 = 25,600,
  // Q 4096 + 2048 + 4096 + 7168 = 17,408 per layer; two RMSNorms of 4096 whole.
  sim::StepShape s;
  sim::TransformerArchitecture a;
  a.layers = 32, a.hidden = 4096, a.heads = 32, a.kv_heads = 8, a.head_dim = 128, a.ffn_hidden = 14336;
  a.vocab = 128256, a.seq_len = 8192;
  s.architecture = a;
  s.tp = 2, s.pp = 1, s.hidden = 4096, s.layers = 32;
  s.params_per_rank = 32ull * (3072ull * 4096 + 4096ull * 2048 + 14336ull * 4096 + 4096ull * 7168 + 2 * 4096);
  const auto split = algorithms::low_rank_split(s, 1);
  CHECK(split.p == Approx(32 * 25600.0));
  CHECK(split.q == Approx(32 * 17408.0));
  CHECK(split.uncompressed == Approx(32 * 8192.0));
}

TEST_CASE("DiLoCo all-reduces the outer gradient once every H steps: H times less than data parallelism",
          "[algorithms]")
{
  const auto s = gpt_shape(16);
  // DiLoCo's defaults: H = 500, fp32 outer gradients (4 bytes a value).
  const auto plan = plan_of("diloco", s);
  REQUIRE(plan.phases.size() == 2);
  CHECK(plan.phases[0].name == "inner");
  CHECK(plan.phases[0].fraction == Approx(1 - 1 / 500.0));
  CHECK(test::comm_ops(plan.phases[0]).empty()); // no data-parallel traffic between outer steps
  CHECK(plan.phases[1].name == "outer");
  CHECK(plan.phases[1].fraction == Approx(1 / 500.0));
  CHECK(bytes_of(plan.phases[1], "allreduce outer gradient") == 4 * s.params_per_rank);
  // In the gradient's own precision (outer_bytes 2, as adam's fp16 all-reduce), the bytes per step averaged over the
  // run are adam's / H: DiLoCo Table 2's "communicates H = 500 times less".
  const auto same_bytes = plan_of("diloco", s, {{"outer_bytes", 2}});
  const double diloco_per_step =
      same_bytes.phases[1].fraction * static_cast<double>(bytes_of(same_bytes.phases[1], "allreduce outer gradient"));
  const double adam_per_step = static_cast<double>(test::comm_ops(plan_of("adam", s).phases[0])[0].bytes);
  CHECK(adam_per_step / diloco_per_step == Approx(500));
  // H = 1 is one phase, the outer step every step.
  CHECK(plan_of("diloco", s, {{"inner_steps", 1}}).phases.size() == 1);
}

TEST_CASE("Streaming DiLoCo sends 1/P of the model in 4 bits on P of every H steps, beside the next tau steps",
          "[algorithms]")
{
  // 24 layers -> P = 8 fragments of 3 blocks; H = 100: 8 sending steps in 100, each with 1/8 of the parameters at
  // half a byte, overlapping tau = 1 step. Bytes per step over the run: params / 2 / 100, 1/800 of fp32 DiLoCo's
  // every step and 1/8 of fp32 DiLoCo's at the same H.
  const auto s    = gpt_shape(16);
  const auto plan = plan_of("streaming-diloco", s);
  REQUIRE(plan.phases.size() == 2);
  CHECK(plan.phases[0].name == "inner");
  CHECK(plan.phases[0].fraction == Approx(1 - 8 / 100.0));
  CHECK(plan.phases[1].name == "sync");
  CHECK(plan.phases[1].fraction == Approx(8 / 100.0));
  const auto ops = test::comm_ops(plan.phases[1]);
  REQUIRE(ops.size() == 1);
  CHECK(ops[0].bytes == (s.params_per_rank / 8 + 1) / 2); // ceil(0.5 x params / 8)
  CHECK(ops[0].overlap_steps == 1);
  CHECK(sim::hidden_under_compute(ops[0], s));
  // More fragments than steps cannot be scheduled, and tau must stay below H.
  CHECK_THROWS_AS(plan_of("streaming-diloco", s, {{"inner_steps", 4}}), std::invalid_argument);
  CHECK_THROWS_AS(plan_of("streaming-diloco", s, {{"overlap_steps", 100}}), std::invalid_argument);
}

TEST_CASE("Streaming DiLoCo exchanges 400 times fewer bytes than bf16 data parallelism, with an 8 times lower peak",
          "[algorithms]")
{
  // Streaming DiLoCo Table 1 (1B model, 24 layers, H = 100, two replicas): data parallelism exchanged 441 TB where
  // Streaming DiLoCo with overlapped FP4 communication exchanged 1.10 TB ("400x fewer bits"), and its caption's peak
  // bandwidth is 8x lower (24 layers / fragments of 3). The plans: Adam all-reduces 2 bytes a parameter every step;
  // Streaming DiLoCo half a byte a parameter once every H steps, 1/8 of the model at a time.
  auto s      = gpt_shape(2);
  s.grad_bytes = 2; // bf16 gradients
  const auto adam      = plan_of("adam", s);
  const auto streaming = plan_of("streaming-diloco", s);
  const double adam_per_step = static_cast<double>(test::comm_ops(adam.phases[0])[0].bytes);
  const auto& sync           = streaming.phases[1];
  const double fragment      = static_cast<double>(test::comm_ops(sync)[0].bytes);
  const double streaming_per_step = sync.fraction * fragment;
  CHECK(adam_per_step / streaming_per_step == Approx(400).epsilon(1e-6));
  CHECK(adam_per_step / streaming_per_step == Approx(441.0 / 1.10).epsilon(0.003)); // the paper's 400.9: -0.2 %
  // Peak: one fragment against the whole model at the same 4 bits (vanilla DiLoCo's all-at-once exchange).
  const auto vanilla = plan_of("diloco", s, {{"inner_steps", 100}, {"outer_bytes", 0.5}});
  CHECK(static_cast<double>(test::comm_ops(vanilla.phases[1])[0].bytes) / fragment == Approx(8).epsilon(1e-6));
}

TEST_CASE("DeMo sends 32 of every 64 x 64 chunk of GPT layers and half of every vector", "[algorithms]")
{
  // Per layer: QKV 3072 x 1024 is 768 chunks of 64 x 64 -> 24,576 coefficients; projection 256 chunks -> 8,192; fc1
  // and fc2 1,024 chunks each -> 32,768 each: 12h²/128 = 98,304. The 13h = 13,312 of biases and norms in pieces of
  // 64, 32 each: 6,656. The rest, 50,000 x 1024, as rows in whole chunks: 51,200,000 / 128 = 400,000.
  const double sent = algorithms::demo_sent_per_rank(gpt_shape(16), 32, 64);
  CHECK(sent == Approx(24 * (98304.0 + 6656.0) + 400000.0));
  // Each of 16 workers gathers every worker's values (fp32) and indices (int64).
  const auto plan = plan_of("demo", gpt_shape(16));
  REQUIRE(plan.phases.size() == 1);
  CHECK(bytes_of(plan.phases[0], "allgather DCT top-k values+indices") == 16ull * 12 * 2919040);
  // Sixteen coefficients a chunk halve the matrices' share; the vectors' pieces of 64 still send 16 of 64.
  CHECK(algorithms::demo_sent_per_rank(gpt_shape(16), 16, 64) == Approx(24 * (49152.0 + 3328.0) + 200000.0));
}

TEST_CASE("DeMo's coefficients of OLMo-1B are the 110.32 MB a step the DeMo paper reports", "[algorithms]")
{
  // OLMo-1B as the DeMo repository's OLMo-1B-100BT-demo.yaml configures it: 16 layers of d 2048, 16 heads, fused QKV,
  // SwiGLU of mlp_ratio 8 (an 8,192-wide gate and up), no biases, tied 50,304 x 2048 embeddings. Its 1,176,764,416
  // parameters are 9,193,472 chunk-fulls of 64 x 64 at 32 each: 110,321,664 bytes of fp32 values and int64 indices,
  // the "110.32 MB" per step of Peng et al.'s v1 table at topk 32 (and 55.16 MB at 16, 6.89 at 2). OLMo's
  // LayerNorms carry no weights; ccsim's architecture always has RMSNorm weights, 2 x 2048 a layer, whose pieces
  // of 64 send half: 387,072 bytes more (+0.35 %).
  sim::StepShape s;
  sim::TransformerArchitecture a;
  a.layers = 16, a.hidden = 2048, a.heads = 16, a.kv_heads = 16, a.head_dim = 128, a.ffn_hidden = 8192;
  a.vocab = 50304, a.seq_len = 2048, a.tied_embeddings = true, a.norm = sim::Norm::RMSNORM;
  s.architecture = a;
  s.hidden = 2048, s.layers = 16;
  s.params_per_rank = 1176764416ull;
  const double norms = 16 * 4096.0;
  const double bytes = 12 * algorithms::demo_sent_per_rank(s, 32, 64);
  CHECK(bytes == Approx(110321664.0 + 12 * (norms / 2 - norms / 128)));
  CHECK(bytes / 110.32e6 - 1 == Approx(0.0035).margin(0.0005));
  CHECK(12 * algorithms::demo_sent_per_rank(s, 16, 64) / 55.16e6 - 1 == Approx(0.0035).margin(0.0005));
  // topk 2: 6,895,104 bytes without the norms (the paper's 6.89, rounded), the norms' pieces sending 2 of 64
  CHECK(12 * algorithms::demo_sent_per_rank(s, 2, 64) == Approx(6895104.0 + 12 * norms * (2 / 64.0 - 2 / 4096.0)));
  CHECK(12 * algorithms::demo_sent_per_rank(s, 2, 64) / 6.89e6 - 1 < 0.005);
}
