// Model-parallel messages and activation memory of architecture-described workloads, worked by hand; and the papers'
// GPT closed form left as it was.
#include "algorithms/MemoryFootprint.hpp"
#include "algorithms/ModelParallelWork.hpp"
#include "algorithms/PlanAlgorithm.hpp"
#include "io/JsonInput.hpp"
#include "tests/support/CommOps.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <variant>
#include <vector>

using namespace ccsim;

namespace {
sim::Workload preset(const std::string& name)
{
  return sim::load_workload(io::resolve_preset("workloads", name, "--workload"));
}

/// A run's shape for `work` as api/run/ResolvedRun.cpp forms it.
sim::StepShape shape_of(const sim::Workload& work, int dp, int tp, int pp, int ep, std::uint64_t micro_batch,
                        int accumulation)
{
  sim::StepShape s;
  s.dp = dp, s.tp = tp, s.pp = pp, s.ep = ep, s.gpus = dp * tp * pp;
  s.gpus_per_node = 8;
  s.params = work.params;
  s.params_per_rank = static_cast<std::uint64_t>(work.params_held(ep)) / static_cast<std::uint64_t>(tp * pp);
  s.micro_batch = micro_batch, s.grad_accumulation = accumulation;
  s.global_batch = static_cast<std::uint64_t>(dp) * micro_batch * static_cast<std::uint64_t>(accumulation);
  s.seq_len = work.seq_len, s.hidden = work.hidden, s.layers = work.layers, s.tensors = work.tensors;
  s.architecture = work.architecture;
  return s;
}

/// The one collective model parallelism added to `phase`, checked to be of this kind on this group.
sim::CommOp only_collective(const sim::PhasePlan& phase, sim::Collective collective, sim::GroupKind group)
{
  const auto ops = test::comm_ops(phase);
  REQUIRE(ops.size() == 1);
  CHECK(ops[0].collective == collective);
  CHECK(ops[0].group == group);
  return ops[0];
}
} // namespace

TEST_CASE("ModelParallelWork: Llama-2-70B at tp 4 pp 4 all-reduces 81 activations per micro-batch", "[algorithms]")
{
  // 80 layers over 4 stages = 20 per stage, 4 all-reduces each (Shoeybi et al. §3), plus the first stage's
  // embedding all-reduce (or the last stage's output-head gradient): 81 of 2·s·b·h = 2 x 4096 x 1 x 8192 bytes.
  // Stage boundaries carry 2·s·b·h / tp per tensor-parallel rank each way. 8 micro-batches per step.
  const auto w = preset("llama2-70b");
  sim::PhasePlan phase;
  algorithms::add_model_parallel_work(phase, shape_of(w, 4, 4, 4, 1, 1, 8));
  const auto ops = test::comm_ops(phase);
  REQUIRE(ops.size() == 2);
  CHECK(ops[1].collective == sim::Collective::ALL_REDUCE);
  CHECK(ops[1].group == sim::GroupKind::TENSOR_PARALLEL);
  CHECK(ops[1].bytes == 81ull * 2 * 4096 * 8192 * 8);
  REQUIRE(phase.pipeline);
  CHECK(phase.pipeline->forward_bytes_per_micro_batch == 2ull * 4096 * 8192 / 4);
  CHECK(phase.pipeline->backward_bytes_per_micro_batch == 2ull * 4096 * 8192 / 4);
  // Each rank sent 1/tp of the boundary, so the receivers all-gather it whole (the scatter/gather of Narayanan et
  // al. 2021 §4.1): an end stage receives 2 vpp - 1 = 1 tensor per micro-batch, 2 x 4096 x 8192 bytes gathered.
  CHECK(ops[0].collective == sim::Collective::ALL_GATHER);
  CHECK(ops[0].group == sim::GroupKind::TENSOR_PARALLEL);
  CHECK(!ops[0].synchronisation);
  CHECK(ops[0].bytes == 1ull * 2 * 4096 * 8192 * 8);
}

TEST_CASE("ModelParallelWork: the receivers gather 2 vpp - 1 boundary tensors per micro-batch, none with sequence "
          "parallelism",
          "[algorithms]")
{
  // Korthikanti's 530B (105 layers, hidden 20,480) at tp 8 pp 35 with 3 chunks per stage, one sequence of 2,048 per
  // micro-batch, 280 micro-batches: an end stage receives 3 activations and 2 gradients per micro-batch (its first
  // or last chunk has no neighbour one way), each 2 x 2048 x 20480 bytes gathered over the tensor-parallel group.
  auto w = sim::load_workload(std::string(CCSIM_SOURCE_DIR) + "/experiments/large-scale/gpt-530b-full.json");
  auto s = shape_of(w, 1, 8, 35, 1, 1, 280);
  s.vpp  = 3;
  sim::PhasePlan phase;
  algorithms::add_model_parallel_work(phase, s);
  const auto ops = test::comm_ops(phase);
  REQUIRE(ops.size() == 2);
  CHECK(ops[0].collective == sim::Collective::ALL_GATHER);
  CHECK(ops[0].bytes == 5ull * 2 * 2048 * 20480 * 280);
  // With sequence parallelism each rank already holds and sends its own sequence shard: nothing to gather.
  s.sequence_parallel = true;
  sim::PhasePlan split;
  algorithms::add_model_parallel_work(split, s);
  CHECK(only_collective(split, sim::Collective::ALL_REDUCE, sim::GroupKind::TENSOR_PARALLEL).bytes > 0);
}

TEST_CASE("ModelParallelWork: Mixtral at ep 8 adds 4 all-to-alls of 2·s·b·k·h per layer and micro-batch",
          "[algorithms]")
{
  // 32 MoE layers, micro-batch 2, seq 4096, top-2, h 4096: each all-to-all sends 2 x 4096 x 2 x 2 x 4096 =
  // 134,217,728 B per rank; 4 per layer (dispatch and combine, forward and backward), 2 micro-batches per step.
  const auto w = preset("mixtral-8x7b");
  sim::PhasePlan phase;
  algorithms::add_model_parallel_work(phase, shape_of(w, 64, 1, 1, 8, 2, 2));
  const auto op = only_collective(phase, sim::Collective::ALL_TO_ALL, sim::GroupKind::EXPERT_PARALLEL);
  CHECK(op.bytes == 4ull * 32 * 134217728ull * 2);
  // Without expert parallelism every rank holds all experts and nothing is exchanged.
  sim::PhasePlan local;
  algorithms::add_model_parallel_work(local, shape_of(w, 64, 1, 1, 1, 2, 2));
  CHECK(test::comm_ops(local).empty());
}

TEST_CASE("ModelParallelWork: the papers' GPT workloads keep the closed form", "[algorithms]")
{
  // gpt-13b at tp 4 pp 2 (SDP4Bit Table 8): 4·40/2 = 80 all-reduces of 2·s·b·h = 2 x 2048 x 1 x 5120, and stage
  // transfers of the whole 2·s·b·h from every tensor-parallel rank, as before issue 29.
  const auto w = preset("gpt-13b");
  REQUIRE_FALSE(w.architecture);
  sim::PhasePlan phase;
  algorithms::add_model_parallel_work(phase, shape_of(w, 8, 4, 2, 1, 1, 4));
  const auto op = only_collective(phase, sim::Collective::ALL_REDUCE, sim::GroupKind::TENSOR_PARALLEL);
  CHECK(op.bytes == 80ull * 2 * 2048 * 5120 * 4);
  CHECK(phase.pipeline->forward_bytes_per_micro_batch == 2ull * 2048 * 5120);
}

TEST_CASE("MemoryFootprint: Llama-3-8B activations come from its architecture", "[algorithms]")
{
  // 32 layers x 1,141,899,264 B (tests/sim/TransformerArchitecture_test.cpp, by hand) + fp32 logits
  // 4·s·b·V = 4 x 8192 x 128,256 = 4,202,692,608 B. Recomputed: 32 x 2·s·b·h (67,108,864) + one layer + logits.
  const auto w        = preset("llama3-8b");
  const auto* sharded = algorithms::find_plan_algorithm("megatron-dp");
  const auto m        = algorithms::memory_footprint(*sharded, w, shape_of(w, 8, 1, 1, 1, 1, 16));
  CHECK(m.activations_bytes == 32 * 1141899264.0 + 4202692608.0);
  CHECK(m.activations_recompute_bytes == 32 * 67108864.0 + 1141899264.0 + 4202692608.0);
  // States: bf16 weights 2, fp32 gradients 4, and 12 bytes of optimizer state sharded over dp 8.
  CHECK(m.weights_bytes == 2 * 8030261248.0);
  CHECK(m.optimizer_bytes == Approx(12 * 8030261248.0 / 8).epsilon(1e-15));
}

TEST_CASE("MemoryFootprint: expert parallelism shards Mixtral's experts but not its optimizer total", "[algorithms]")
{
  // At ep 8 a rank holds the attention, norms, router and embeddings (46,702,792,704 - 45,097,156,608 =
  // 1,605,636,096) and one of the 8 experts of every layer (45,097,156,608 / 8 = 5,637,144,576): 7,242,780,672.
  // Megatron's distributed optimizer shards an expert's states over the dp/ep ranks that hold it, so the 12 bytes
  // per parameter still spread the whole model over dp = 64.
  const auto w        = preset("mixtral-8x7b");
  const auto* sharded = algorithms::find_plan_algorithm("megatron-dp");
  const auto m        = algorithms::memory_footprint(*sharded, w, shape_of(w, 64, 1, 1, 8, 2, 2));
  CHECK(m.weights_bytes == 2 * 7242780672.0);
  CHECK(m.gradients_bytes == 4 * 7242780672.0);
  CHECK(m.optimizer_bytes == Approx(12 * 46702792704.0 / 64).epsilon(1e-15));
}

TEST_CASE("ModelParallelWork: --tp-overlap pairs each layer's 10 all-gathers and reduce-scatters with their GEMMs",
          "[algorithms]")
{
  // Korthikanti's 22B GPT (48 layers) at tp 8 with sequence parallelism, one stage, 2 micro-batches: 5 all-reduces'
  // bytes per layer (4, plus the backward re-gather of QKV's and FC1's inputs) and 2 more (embedding, output head),
  // 242 per micro-batch. With the overlap, each layer's traffic is 10 collectives of half an all-reduce, each beside a
  // GEMM (Transformer Engine's initialize_ub): share 1/2 / (242 x 2) of the op, 48 x 2 runs per step; the embedding's
  // and output head's 2 all-reduces are listed nowhere.
  auto w = sim::load_workload(std::string(CCSIM_SOURCE_DIR) + "/experiments/large-scale/gpt-22b-selective.json");
  auto s = shape_of(w, 1, 8, 1, 1, 4, 2);
  s.sequence_parallel = true;
  s.tp_overlap        = true;
  sim::PhasePlan phase;
  algorithms::add_model_parallel_work(phase, s);
  const auto op = only_collective(phase, sim::Collective::ALL_REDUCE, sim::GroupKind::TENSOR_PARALLEL);
  CHECK(op.bytes == 242ull * 2 * 2048 * 4 * 6144 * 2);
  REQUIRE(op.beside_gemms.size() == 10);
  double listed = 0;
  for (const auto& g : op.beside_gemms) {
    CHECK(g.runs == 48u * 2);
    CHECK(g.share == Approx(0.5 / (242 * 2)).epsilon(1e-12));
    CHECK(g.chunks == (g.method == sim::GemmOverlapMethod::RING_EXCHANGE ? 8 : g.method == sim::GemmOverlapMethod::PIPELINE ? 4 : 1));
    listed += g.share * static_cast<double>(g.runs);
  }
  CHECK(listed == Approx(240.0 / 242).epsilon(1e-12));
  // Forward: all-gathers into QKV and FC1 (ring exchange), reduce-scatters out of the projection and FC2 (pipeline).
  CHECK(op.beside_gemms[0].gemm == "qkv");
  CHECK(op.beside_gemms[0].method == sim::GemmOverlapMethod::RING_EXCHANGE);
  CHECK(op.beside_gemms[1].gemm == "out_proj");
  CHECK(op.beside_gemms[1].method == sim::GemmOverlapMethod::PIPELINE);
  CHECK(op.beside_gemms[9].gemm == "qkv.wgrad");
  CHECK(op.beside_gemms[9].method == sim::GemmOverlapMethod::BULK);

  // Full recomputation runs the forward's four again: 7 all-reduces' bytes per layer, 338 per micro-batch, 14 pairs.
  s.recompute = sim::Recompute::FULL;
  sim::PhasePlan recomputing;
  algorithms::add_model_parallel_work(recomputing, s);
  const auto again = only_collective(recomputing, sim::Collective::ALL_REDUCE, sim::GroupKind::TENSOR_PARALLEL);
  CHECK(again.bytes == 338ull * 2 * 2048 * 4 * 6144 * 2);
  REQUIRE(again.beside_gemms.size() == 14);
  CHECK(again.beside_gemms[10].gemm == "qkv");
  CHECK(again.beside_gemms[13].gemm == "fc2");

  // Without sequence parallelism there are no all-gathers and reduce-scatters to overlap.
  s.sequence_parallel = false;
  s.recompute         = sim::Recompute::NONE;
  sim::PhasePlan plain;
  algorithms::add_model_parallel_work(plain, s);
  CHECK(only_collective(plain, sim::Collective::ALL_REDUCE, sim::GroupKind::TENSOR_PARALLEL).beside_gemms.empty());
}

TEST_CASE("ModelParallelWork: Llama 3 405B at tp 8 cp 16 pp 16 sends 45 K,V blocks per layer and micro-batch",
          "[algorithms]")
{
  // Llama 3 Table 4's long-context row: sequence 131,072 over cp 16 (8,192 tokens per rank), tp 8 with sequence
  // parallelism, 16 stages of ceil(126 / 16) = 8 layers, 16 micro-batches of 1 per step (dp 8, global batch 128).
  // K,V block: 8,192 x (8 kv heads / 8) x 128 x 2 x 2 = 4,194,304 B; per layer (cp - 1) forward + 2 (cp - 1)
  // backward = 45 blocks.
  const auto w = preset("llama3.1-405b");
  auto s       = shape_of(w, 8, 8, 16, 1, 1, 16);
  s.cp = 16, s.gpus *= 16, s.seq_len = 131072, s.sequence_parallel = true;
  sim::PhasePlan phase;
  algorithms::add_model_parallel_work(phase, s);
  const auto ops = test::comm_ops(phase);
  REQUIRE(ops.size() == 2);
  const auto& tp = ops[0];
  const auto& ring = ops[1];
  CHECK(ring.collective == sim::Collective::SEND_RECV);
  CHECK(ring.group == sim::GroupKind::CONTEXT_PARALLEL);
  REQUIRE(ring.ring);
  CHECK(ring.ring->kv_block_bytes == 4194304ull);
  CHECK(ring.ring->layers == 8);
  CHECK(ring.ring->micro_batches == 16);
  CHECK(ring.bytes == 16ull * 8 * 45 * 4194304);
  // Every other message carries this rank's 8,192 tokens: per micro-batch 8 layers x (4 + 1 for sequence
  // parallelism's re-gathers) + 1 all-reduces of 2 x 8,192 x 16,384 bytes, and stage boundaries of that / tp.
  CHECK(tp.group == sim::GroupKind::TENSOR_PARALLEL);
  CHECK(tp.bytes == (8ull * 5 + 1) * 2 * 8192 * 16384 * 16);
  CHECK(phase.pipeline->forward_bytes_per_micro_batch == 2ull * 8192 * 16384 / 8);
  // Recomputation (full or selective) reruns the forward's 15 blocks: 60 per layer.
  s.recompute = sim::Recompute::SELECTIVE;
  sim::PhasePlan again;
  algorithms::add_model_parallel_work(again, s);
  CHECK(test::comm_ops(again)[1].bytes == 16ull * 8 * 60 * 4194304);
}

TEST_CASE("MemoryFootprint: context parallelism divides the activations by cp and shards over dp x cp",
          "[algorithms]")
{
  // Llama-3-8B at cp 2: each rank holds 4,096 of the 8,192 tokens, and FlashAttention's layer stores bytes linear in
  // its tokens: 32 x 1,141,899,264 / 2 + fp32 logits 4 x 4,096 x 128,256 = 2,101,346,304 B. The optimizer's 12 bytes
  // per parameter are sharded over the dp x cp = 8 x 2 ranks of the gradient group.
  const auto w        = preset("llama3-8b");
  const auto* sharded = algorithms::find_plan_algorithm("megatron-dp");
  auto s              = shape_of(w, 8, 1, 1, 1, 1, 16);
  s.cp                = 2;
  const auto m        = algorithms::memory_footprint(*sharded, w, s);
  CHECK(m.activations_bytes == 32 * 1141899264.0 / 2 + 2101346304.0);
  CHECK(m.optimizer_bytes == Approx(12 * 8030261248.0 / 16).epsilon(1e-15));
  // The plan reduce-scatters fp32 gradients over the gradient group and updates 1/16 of the parameters.
  const auto plan = sharded->plan(s, algorithms::default_params(*sharded));
  const auto ops  = test::comm_ops(plan.phases.at(0));
  const auto rs   = std::find_if(ops.begin(), ops.end(), [](const auto& o) { return o.collective == sim::Collective::REDUCE_SCATTER; });
  REQUIRE(rs != ops.end());
  CHECK(rs->group == sim::GroupKind::DATA_PARALLEL);
  CHECK(rs->bytes == 4ull * 8030261248);
  for (const auto& op : plan.phases.at(0).ops)
    if (const auto* o = std::get_if<sim::OptimizerOp>(&op))
      CHECK(o->params == 8030261248ull / 16);
}
