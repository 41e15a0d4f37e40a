// Context parallelism (--cp): the rank layout's groups, ring attention's K,V block for a GQA model by hand, the ring's
// closed form (sim/layout/OverlapSchedule.hpp, ring_attention_exposure), and the step engine charging it: one ring
// fully hidden under the attention it runs beside, one not, each against the closed form with the round times
// simulated alone and checked against bandwidth and latency by hand.
#include "sim/layout/OverlapSchedule.hpp"
#include "sim/layout/RankLayout.hpp"
#include "sim/model/Workload.hpp"
#include "tests/sim/SimTestSupport.hpp"

#include <nlohmann/json.hpp>

#include <tuple>
#include <utility>

using namespace ccsim;
using namespace ccsim::test;

TEST_CASE("ContextParallel: ranks run tp then cp then dp then pp - cp rings and dp x cp gradient groups", "[sim]")
{
  // tp 2, cp 2, dp 2, pp 2 on 16 GPUs: rank = p·8 + (d·2 + c)·2 + t (Megatron-Core's tp-cp-dp-pp order).
  const sim::RankLayout l{2, 2, 2, 8, 1, 2};
  CHECK(l.gpus() == 16);
  CHECK(l.rank(1, 3, 1) == 8 + 3 * 2 + 1);
  // A ring holds the cp ranks of one (p, d, t): stage 0, replica 0, slice 0 is {0, 2}; replica d = 1 is {4, 6}.
  const auto rings = l.groups(sim::GroupKind::CONTEXT_PARALLEL);
  REQUIRE(rings.size() == 8); // pp x dp x tp
  CHECK(rings[0] == sim::Group{0, 2});
  CHECK(rings[1] == sim::Group{1, 3});
  CHECK(rings[2] == sim::Group{4, 6});
  // Gradients reduce over dp x cp = 4 ranks sharing (p, t); tensor-parallel groups stay 2 neighbours.
  const auto grads = l.groups(sim::GroupKind::DATA_PARALLEL);
  REQUIRE(grads.size() == 4); // pp x tp
  CHECK(grads[0] == sim::Group{0, 2, 4, 6});
  CHECK(grads[3] == sim::Group{9, 11, 13, 15});
  CHECK(l.groups(sim::GroupKind::TENSOR_PARALLEL)[1] == sim::Group{2, 3});
  // cp 1 is the layout it was: rank = p·dp·tp + d·tp + t.
  const sim::RankLayout plain{4, 2, 2, 8};
  CHECK(plain.rank(1, 3, 1) == 8 + 6 + 1);
  CHECK(plain.groups(sim::GroupKind::DATA_PARALLEL)[0] == sim::Group{0, 2, 4, 6});
}

TEST_CASE("ContextParallel: a GQA model's K,V block is b x s/cp x kv heads/tp x d x 2 tensors x 2 bytes", "[sim]")
{
  // Llama 3 405B (8 kv heads of 128) at tp 8, cp 16, sequence 131,072, micro-batch 1: 8,192 tokens x 1 kv head x
  // 128 x 2 x 2 = 4,194,304 bytes; at tp 16 each rank still holds one (replicated) kv head.
  sim::TransformerArchitecture a;
  a.kv_heads = 8, a.head_dim = 128;
  CHECK(sim::cp_kv_block_bytes(a, 1, 131072, 8, 16) == 4194304ull);
  CHECK(sim::cp_kv_block_bytes(a, 1, 131072, 16, 16) == 4194304ull);
  // Llama 3 8B at tp 1, cp 2, sequence 8,192, micro-batch 2: 2 x 4,096 x 8 x 128 x 4 = 33,554,432 bytes.
  CHECK(sim::cp_kv_block_bytes(a, 2, 8192, 1, 2) == 33554432ull);
  // Per layer and micro-batch the ring sends cp - 1 blocks forward and 2 (cp - 1) backward (K,V out first, dK,dV home
  // last, both in the cp - 2 rounds between): 45 blocks at cp 16, 60 when recomputation reruns the forward's.
  sim::RingAttention ring;
  ring.cp = 16, ring.layers = 8, ring.micro_batches = 16, ring.kv_block_bytes = 4194304;
  CHECK(ring.one_block_rounds_per_layer() == 15 + 2);
  CHECK(ring.two_block_rounds_per_layer() == 14);
  CHECK(ring.blocks_per_layer() == 45);
  CHECK(ring.bytes_per_step() == 16ull * 8 * 45 * 4194304);
  ring.recompute = true;
  CHECK(ring.blocks_per_layer() == 60);
  ring.cp = 1;
  CHECK(ring.bytes_per_step() == 0);
}

TEST_CASE("ContextParallel: the ring's closed form - each round exposes what outlasts its attention step", "[sim]")
{
  // cp 4: forward steps of a_f / 4 = 1 s, backward steps of a_b / 4 = 2.5 s.
  // Rounds of 0.5 s (one block) and 1 s (two blocks) hide entirely: 3 forward, 2 + 2 backward rounds in flight.
  const auto hidden = sim::ring_attention_exposure(4, 0.5, 1.0, 4.0, 10.0, false);
  CHECK(hidden.exposed_s == 0);
  CHECK(hidden.comm_s == Approx(3 * 0.5 + 2 * 0.5 + 2 * 1.0));
  // Rounds of 2 s and 4 s: forward 3 x (2 - 1), backward 2 x max(0, 2 - 2.5) + 2 x (4 - 2.5) = 3 + 0 + 3.
  const auto exposed = sim::ring_attention_exposure(4, 2.0, 4.0, 4.0, 10.0, false);
  CHECK(exposed.exposed_s == Approx(6));
  CHECK(exposed.comm_s == Approx(3 * 2 + 2 * 2 + 2 * 4));
  // Recomputation reruns the 3 forward rounds: 3 more seconds exposed, 6 more in flight.
  const auto again = sim::ring_attention_exposure(4, 2.0, 4.0, 4.0, 10.0, true);
  CHECK(again.exposed_s == Approx(9));
  CHECK(again.comm_s == Approx(18 + 6));
  // cp 2: one forward round and two backward ones (K,V out, dK,dV home), none of two blocks.
  const auto two = sim::ring_attention_exposure(2, 3.0, 6.0, 4.0, 10.0, false);
  CHECK(two.exposed_s == Approx((3 - 2) + 2 * 0.0));
  CHECK(two.comm_s == Approx(3 * 3.0));
  CHECK(sim::ring_attention_exposure(1, 3, 6, 4, 10, false).comm_s == 0);
}

namespace {
/// A small GQA model: 2 layers, hidden 1,024, 8 query heads and 2 kv heads of 128, sequence 8,192.
sim::Workload gqa_workload()
{
  const nlohmann::json doc = {
      {"description", "test"},
      {"source", "test"},
      {"family", "llama"},
      {"architecture",
       {{"layers", 2}, {"hidden", 1024}, {"heads", 8}, {"kv_heads", 2}, {"ffn_hidden", 2048}, {"activation", "swiglu"},
        {"norm", "rmsnorm"}, {"vocab", 1024}, {"seq_len", 8192}, {"tied_embeddings", false}, {"linear_bias", false},
        {"positions", "rope"}, {"source", "test"}}},
      {"defaults", {{"global_batch", 3}, {"micro_batch", 1}}}};
  return sim::workload_from_json(doc, "gqa.json");
}

/// cp 4 over 4 GPUs, dp 1, 3 micro-batches of 1 sequence.
sim::StepShape ring_shape(const sim::Workload& w, int gpus_per_node)
{
  sim::StepShape s;
  s.gpus = 4, s.dp = 1, s.tp = 1, s.pp = 1, s.cp = 4, s.gpus_per_node = gpus_per_node;
  s.micro_batch = 1, s.grad_accumulation = 3, s.global_batch = 3;
  s.seq_len = 8192, s.layers = 2, s.hidden = 1024, s.params = w.params, s.params_per_rank = w.params;
  s.architecture = w.architecture;
  return s;
}

/// The ring of 2 layers x 3 micro-batches, each rank's K,V block b x s/cp x kv x d x 2 x 2 = 2,048 x 2 x 128 x 4.
constexpr std::uint64_t kBlock = 2048ull * 2 * 128 * 4;
sim::CommOp ring_op()
{
  sim::RingAttention ring;
  ring.kv_block_bytes = kBlock, ring.cp = 4, ring.layers = 2, ring.micro_batches = 3;
  sim::CommOp op{"ring", sim::Collective::SEND_RECV, sim::GroupKind::CONTEXT_PARALLEL, ring.bytes_per_step()};
  op.synchronisation = false;
  op.ring            = ring;
  return op;
}

/// step, compute, comm, exposed, inter-node bytes per GPU, and the attention times the engine priced.
std::vector<double> ring_step(const sim::Topology& topo, const sim::Workload& w, const sim::StepShape& s)
{
  return in_child([&] {
    const sim::StepPlan plan{{sim::PhasePlan{"p", 1.0, {ring_op()}, std::nullopt}}};
    const auto r  = sim::simulate_step(topo, w, plan, s, sim::Fidelity::EXACT, false);
    const auto& p = r.phases.at(0);
    return std::vector<double>{p.step_time_s,    p.compute_s,
                               p.comm_s,         p.exposed_comm_s,
                               p.inter_node_bytes_per_gpu, r.compute.attention_forward_s,
                               r.compute.attention_backward_s};
  });
}

/// One ring round of one block and one of two blocks, every ring at once, simulated alone (no compute).
std::pair<double, double> round_times(const sim::Topology& topo, const sim::StepShape& s)
{
  const auto kind = sim::GroupKind::CONTEXT_PARALLEL;
  const auto send = sim::Collective::SEND_RECV;
  return {time_collective(topo, s, send, kBlock, sim::Fidelity::EXACT, sim::Algo::AUTO, kind),
          time_collective(topo, s, send, 2 * kBlock, sim::Fidelity::EXACT, sim::Algo::AUTO, kind)};
}

// One layer's attention on a rank, by hand: FlashAttention's causal work 4 b (a/t) d pairs, pairs = s (s + 128) / 2
// / cp (diagonal blocks of 128 whole; Megatron's balanced split gives every rank 1/cp) = 8,192 x 8,320 / 2 / 4 =
// 8,519,680; 4 x 8 x 128 x 8,519,680 = 34,896,609,280 FLOPs at the test GPU's 1e15 FLOP/s; backward 2.5 times that.
constexpr double kAttentionForward  = 34896609280.0 / 1e15;
constexpr double kAttentionBackward = 2.5 * kAttentionForward;

/// The ring of 4 GPUs on `nodes` nodes of 4 / nodes GPUs (100 Gb/s NICs, 5 us; 10,000 Gb/s ports inside a node):
/// the round times alone and the step.
struct RingRun {
  double r1 = 0, r2 = 0;
  std::vector<double> step;
};
RingRun run_ring(int nodes)
{
  const auto topo = rdma_cluster(4 / nodes, nodes, 100, 5);
  const auto w    = gqa_workload();
  const auto s    = ring_shape(w, 4 / nodes);
  RingRun r;
  std::tie(r.r1, r.r2) = round_times(topo, s);
  r.step               = ring_step(topo, w, s);
  return r;
}
} // namespace

TEST_CASE("ContextParallel: a ring within a node hides entirely under the attention", "[sim]")
{
  // 4 GPUs on one node's 10,000 Gb/s ports (0.5 us each, sender's and receiver's): a 2 MiB round takes 2,097,152 /
  // 1.25e12 + 2 x 0.5 us = 2.68 us, under the forward step a_f / 4 = 8.7 us; two blocks, 4.4 us, under the backward
  // step a_b / 4 = 21.8 us.
  const auto [r1, r2, out] = run_ring(1);
  CHECK(r1 == Approx(kBlock / 1.25e12 + 2 * 0.5e-6).epsilon(1e-3));
  REQUIRE(r1 < kAttentionForward / 4);
  REQUIRE(r2 < kAttentionBackward / 4);
  CHECK(out[5] == Approx(kAttentionForward).epsilon(1e-12));
  CHECK(out[6] == Approx(kAttentionBackward).epsilon(1e-12));
  CHECK(out[2] == Approx(3 * 2 * (3 * r1 + 2 * r1 + 2 * r2)).epsilon(1e-9)); // every round in flight
  CHECK(out[3] == 0);                                                         // none exposed
  CHECK(out[0] == Approx(out[1]).epsilon(1e-12));                             // the step is its compute
  CHECK(out[4] == 0);
}

TEST_CASE("ContextParallel: a ring across nodes is exposed by what each round outlasts its attention step", "[sim]")
{
  // 4 nodes of 1 GPU at 100 Gb/s, 5 us: a 2 MiB round takes 2,097,152 / 12.5e9 plus the route's latency, both NICs
  // (2 x 5 us) and both GPU ports (2 x 0.5 us): 178.8 us, far over the attention's steps. Exposed per layer and micro-batch: 3 (r1 - a_f/4) + 2 (r1 - a_b/4) + 2 (r2 - a_b/4).
  const auto [r1, r2, out] = run_ring(4);
  CHECK(r1 == Approx(kBlock / 12.5e9 + 11e-6).epsilon(1e-3));
  CHECK(r2 == Approx(2 * kBlock / 12.5e9 + 11e-6).epsilon(1e-3));
  const double af = kAttentionForward / 4, ab = kAttentionBackward / 4;
  const double exposed = 3 * 2 * (3 * (r1 - af) + 2 * (r1 - ab) + 2 * (r2 - ab));
  CHECK(out[3] == Approx(exposed).epsilon(1e-9));
  CHECK(out[2] == Approx(3 * 2 * (5 * r1 + 2 * r2)).epsilon(1e-9));
  CHECK(out[0] == Approx(out[1] + exposed).epsilon(1e-9));
  // Bytes per GPU: 3 micro-batches x 2 layers x (cp - 1) x 3 blocks, every one across nodes.
  CHECK(out[4] == Approx(3.0 * 2 * 3 * 3 * kBlock).epsilon(1e-12));
}
