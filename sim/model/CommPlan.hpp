#pragma once
// The seam between algorithms/ and the step engine: an algorithm states *what* one training step does
// after the backward pass (collectives on which group, how many bytes, which kernels, which optimizer),
// per phase; the step engine decides *how* it runs on the simulated cluster. No algorithm is hard-coded
// in sim/.

#include "sim/model/TrainingRecipe.hpp"
#include "sim/model/TransformerArchitecture.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace ccsim::sim {

enum class Collective {
  ALL_REDUCE,     // `bytes` = each rank's buffer (in and out)
  REDUCE_SCATTER, // `bytes` = each rank's full input; each rank ends with bytes/n
  ALL_GATHER,     // `bytes` = each rank's full output; each rank contributes bytes/n
  ALL_TO_ALL,     // `bytes` = each rank's full send buffer; bytes/n goes to each rank (itself included)
  SEND_RECV,      // `bytes` = each rank's buffer: rank r sends it to r+1 and receives r-1's (nccl-tests sendrecv_perf)
};

/// Which ranks a collective runs among. Every group of the kind runs the collective at the same time
/// (e.g. all tp·pp data-parallel groups at once), so they contend for the same NICs as on a real cluster.
enum class GroupKind {
  DATA_PARALLEL,   // ranks with this rank's (tp, pp) coordinate: dp x cp ranks (gradients reduce over data and context)
  DP_INTRA_NODE,   // the data-parallel peers that share this rank's node
  DP_INTER_NODE,   // the data-parallel peers with this rank's position inside its node, one per node
  TENSOR_PARALLEL, // the tp ranks of one pipeline stage of one replica
  EXPERT_PARALLEL, // ep consecutive data-parallel ranks that share a mixture's experts (RankLayout)
  CONTEXT_PARALLEL, // the cp ranks of one (tp, dp, pp) coordinate that split one sequence (ring attention's ring)
};

/// How the collective is executed. AUTO lets the topology's rule choose (sim/platform/NcclConfig.hpp: NCCL's cost model where
/// the topology has an "nccl" block; otherwise ccsim's own rule, hierarchical when the group spans several nodes and
/// has several ranks per node, ring otherwise). RING, TREE, NVLS and NVLS_TREE are NCCL's algorithms, DIRECT its
/// point-to-point (all-to-all, send/recv); HIERARCHICAL is ccsim's intra-node reduce-scatter, inter-node ring,
/// intra-node all-gather.
enum class Algo { AUTO, RING, HIERARCHICAL, DIRECT, TREE, NVLS, NVLS_TREE };

/// Where a per-layer collective (CommOp::per_layer) runs: NONE, it is not one; else under which pass.
enum class LayerPass { NONE, FORWARD, BACKWARD };

/// How a tensor-parallel collective runs beside the GEMM that produces or consumes it under Megatron-Core's
/// --tp-comm-overlap (Transformer Engine's userbuffers: transformer_engine/pytorch/module/base.py, initialize_ub, whose
/// default methods put qkv_fprop, fc1_fprop, proj_dgrad and fc2_dgrad on "ring_exchange", proj_fprop and fc2_fprop on
/// "pipeline" and qkv_dgrad, qkv_wgrad, fc1_dgrad and fc1_wgrad on "bulk"). The exposed time of each is a closed form
/// of the collective's and the GEMM's times (sim/layout/GemmOverlap.hpp).
enum class GemmOverlapMethod {
  RING_EXCHANGE, // an all-gather as tp point-to-point steps, the GEMM on each chunk as it arrives (the local one first)
  PIPELINE,      // the GEMM in chunks, each chunk's reduce-scatter beside the next chunk's GEMM
  BULK,          // the whole collective beside a whole GEMM that does not depend on it
};

/// One tensor-parallel collective of a layer and the GEMM it overlaps (CommOp::beside_gemms).
struct GemmOverlap {
  std::string gemm{}; // the per-operator model's GEMM (sim/compute/TransformerOps.hpp): "qkv", "fc2.dgrad", ...
  GemmOverlapMethod method = GemmOverlapMethod::BULK;
  int chunks = 1;   // RING_EXCHANGE: tp; PIPELINE: the GEMM's splits; BULK: 1
  /// One run's share of the op's time: its bytes over the op's (an all-gather or reduce-scatter of a layer's
  /// activations moves half an all-reduce's).
  double share = 0;
  std::uint64_t runs = 0; // per step: the stage's layers x micro-batches
};

/// Context parallelism's ring attention as Transformer Engine runs it for Megatron-Core (cp_comm_type "p2p":
/// AttnFuncWithCPAndKVP2P in transformer_engine/pytorch/attention/dot_product_attention/context_parallel.py). Each of
/// the cp ranks of a sequence holds its queries and one K,V block; per layer and micro-batch:
/// - forward: cp attention steps, one per K,V block; before step i (< cp - 1) the block it computes on is sent to the
///   next rank and the next block received, one send/recv of kv_block_bytes, on its own stream beside step i's
///   attention: cp - 1 rounds;
/// - backward: cp steps in reverse ring order; the first round carries K,V alone, the cp - 2 middle ones K,V with
///   the dK,dV accumulated so far (2 x kv_block_bytes), the last dK,dV alone, back to their owner: 2 (cp - 1) blocks;
/// - recomputation (full, or selective: the attention core is what it reruns) runs the forward's rounds again.
/// The engine charges what the rounds leave exposed beyond the attention step they run beside
/// (sim/layout/OverlapSchedule.hpp, ring_attention_exposed_s).
struct RingAttention {
  std::uint64_t kv_block_bytes = 0; // one rank's K and V of one micro-batch: b·(s/cp)·(kv heads/tp)·d·2 tensors·2 bytes
  int cp                       = 1;
  std::uint64_t layers         = 0; // layers on the busiest pipeline stage
  std::uint64_t micro_batches  = 0; // per step
  bool recompute               = false;
  /// Rounds per layer and micro-batch that carry one block: the forward's cp - 1 (twice when recomputing) and the
  /// backward's first and last; 0 without a ring (cp 1).
  std::uint64_t one_block_rounds_per_layer() const
  {
    return cp < 2 ? 0 : static_cast<std::uint64_t>(cp - 1) * (recompute ? 2 : 1) + 2;
  }
  /// Rounds per layer and micro-batch that carry two blocks (K,V with dK,dV): the backward's cp - 2 middle ones.
  std::uint64_t two_block_rounds_per_layer() const { return cp < 2 ? 0 : static_cast<std::uint64_t>(cp - 2); }
  /// Blocks sent per layer and micro-batch: (cp - 1) forward, 2 (cp - 1) backward, (cp - 1) more when recomputing.
  std::uint64_t blocks_per_layer() const { return one_block_rounds_per_layer() + 2 * two_block_rounds_per_layer(); }
  /// Rounds of each kind in a step: per layer, times the layers and the micro-batches.
  std::uint64_t one_block_rounds() const { return micro_batches * layers * one_block_rounds_per_layer(); }
  std::uint64_t two_block_rounds() const { return micro_batches * layers * two_block_rounds_per_layer(); }
  /// Bytes each rank sends in a step.
  std::uint64_t bytes_per_step() const { return micro_batches * layers * blocks_per_layer() * kv_block_bytes; }
};

struct CommOp {
  std::string label;          // e.g. "allreduce gradients"; named in breakdowns and --links reports
  Collective collective;
  GroupKind group;
  std::uint64_t bytes;        // see Collective for what this counts
  Algo algo = Algo::AUTO;
  bool synchronisation = true; // counts toward breakdown.allreduce_ms (the step's gradient/momentum sync)
  /// A gradient reduction that may run in buckets under the last micro-batch's backward pass (PyTorch DDP, Megatron's
  /// overlap_grad_reduce), when the run's OverlapSettings::grad_reduction is BUCKETED. Only uncompressed reductions
  /// are flagged: a compressed one needs the whole accumulated gradient (its compression kernels run after the pass),
  /// and DiLoCo's outer gradient only where asked (outer_in_backward: the inner step applied layer by layer in the
  /// backward pass).
  bool overlap_backward = false;
  /// With overlap_backward: the share of the backward pass by which the op's bytes are all produced (1: the whole
  /// pass, a whole gradient; a Streaming DiLoCo fragment of strided layers is done before its lowest layer's turn).
  double backward_ready = 1;
  /// A weight all-gather after the optimizer step that the next step's first forward pass may prefetch bucket by
  /// bucket (Megatron's overlap_param_gather, FSDP/ZeRO-3 forward prefetch), when OverlapSettings::param_prefetch.
  bool prefetch_forward = false;
  /// ZeRO-3 / FSDP (Rajbhandari et al. 2020 §5.3; PyTorch FSDP, Zhao et al. 2023 §3.3): a collective run layer by
  /// layer inside every micro-batch's forward or backward pass, `bytes` per pass, always on its own stream beside the
  /// compute (sim/layout/OverlapSchedule.hpp, layered_pass_s): each layer's weights gathered one layer ahead of its
  /// compute, each layer's gradients reduced once its backward produced them.
  LayerPass per_layer = LayerPass::NONE;
  /// Megatron-Core's tensor-parallel communication overlap (--tp-comm-overlap): the layers' collectives of this op,
  /// each beside its GEMM. The op is timed whole on the cluster once; each listed collective takes its share of that
  /// time and exposes only what its GEMM cannot hide; the rest of the op (not listed: the embedding's and the output
  /// layer's all-reduces) stays exposed in full. Empty: none of it overlaps.
  std::vector<GemmOverlap> beside_gemms{};
  /// An exchange that runs beside the compute of the next `overlap_steps` whole steps (Streaming DiLoCo's overlapped
  /// outer gradients, Douillard et al. 2025 §2.3): timed whole on the cluster, it delays its step only by what
  /// outlasts that compute. 0: none. With overlap_backward (and bucketed overlap) it starts in its own step's last
  /// backward pass, which hides it as well.
  int overlap_steps = 0;
  /// Context parallelism's K,V ring (a SEND_RECV on CONTEXT_PARALLEL groups, `bytes` = ring->bytes_per_step()): run
  /// by the engine round by round beside the attention it overlaps, not as one collective.
  std::optional<RingAttention> ring{};
};

/// A compression kernel on every GPU; cost = bytes / (the GPU's GB/s for that kernel).
struct KernelOp {
  std::string kernel; // a name from bench-kernels: "onebit_compress", "quant_int4_g128", ...
  std::uint64_t bytes; // input bytes the kernel streams
  /// Part of the gradient synchronisation as the algorithm's paper times it: counted in allreduce_ms beside the
  /// collectives (SDP4Bit Table 4's "Grad. Comm. Time" holds its quantization kernels: the unfused Hadamard variant
  /// is 64.6 ms against 45.8 ms fused, over the same bytes).
  bool synchronisation = false;
};

/// The optimizer update on every GPU; cost from the workload's calibration for this GPU
/// (optimizer_s[name]) or else from `bytes_touched` / memory bandwidth.
struct OptimizerOp {
  std::string optimizer;      // "adam", "lamb", "onebit-lamb", ...: looked up in the workload's optimizer_s
  std::string fallback;       // measured name to use when `optimizer` has no measurement ("" = none)
  std::uint64_t params;       // parameters this GPU updates (a shard under sharded DP)
  double bytes_touched_per_param = 16.0; // fp32 param, grad, m, v read+write
};

using Op = std::variant<CommOp, KernelOp, OptimizerOp>;

/// Pipeline-parallel communication: a GPipe schedule over `pp` stages, `micro_batches` per step,
/// each boundary sending these bytes per micro-batch forward and backward (AQ-SGD §4, Fig. 2).
struct PipelineComm {
  std::uint64_t forward_bytes_per_micro_batch = 0;
  std::uint64_t backward_bytes_per_micro_batch = 0;
  std::vector<KernelOp> kernels_per_micro_batch; // quantize/dequantize around each send
  /// Whether a stage waits for each send to arrive before it computes its next unit. Megatron-LM's pipeline sends and
  /// receives of a step go out as one batch_isend_irecv that the schedule waits on (then torch.cuda.synchronize(),
  /// p2p_communication.py `_communicate`), and DeepSpeed's pipeline engine sends with blocking dist.send/recv: in
  /// 1F1B each micro-batch's two exchanges (activation out with gradient in, gradient out with activation in) lie on
  /// the critical path, f + b + 2d per micro-batch and stage, which blocking sends in this GPipe order reproduce
  /// (docs/overlap.md). false: the sends overlap the next unit's compute (AC-SGD's send and receive streams, an
  /// asynchronous schedule).
  bool blocking_sends = false;
};

/// One phase of training (e.g. 1-bit Adam's uncompressed warm-up, then its compressed stage).
struct PhasePlan {
  std::string name;      // "warmup", "compressed", "sync", ...
  double fraction = 1.0; // share of the run's steps; the fractions of a plan sum to 1
  std::vector<Op> ops;   // in order, after the last backward pass
  std::optional<PipelineComm> pipeline;
};

struct StepPlan {
  std::vector<PhasePlan> phases;
};

/// How the modelled training system overlaps data-parallel communication with compute (workload "overlap",
/// `simulate --overlap`; docs/overlap.md). Tensor-parallel, expert-parallel and compressed collectives are never
/// overlapped: each waits for the compute that produces its input and the compute after it waits for its output.
enum class GradReduction {
  NONE,     // every collective after the last backward pass, one after another (the papers' systems)
  BUCKETED, // CommOp::overlap_backward reductions in buckets under the last backward pass
};
struct OverlapSettings {
  GradReduction grad_reduction = GradReduction::NONE;
  std::uint64_t bucket_bytes   = 25'000'000; // PyTorch DDP's bucket_cap_mb default, 25 MB
  bool param_prefetch          = false;       // CommOp::prefetch_forward all-gathers under the next first forward
};

/// What the engine tells an algorithm about one step, so it can size its messages.
struct StepShape {
  std::uint64_t params = 0;      // model parameters (whole model)
  std::uint64_t params_per_rank = 0; // parameters one GPU holds: params / (tp·pp), experts split over ep
  int gpus = 1;
  int dp = 1, tp = 1, pp = 1;
  /// Model chunks per pipeline rank: Megatron's interleaved 1F1B (--num-layers-per-virtual-pipeline-stage; Narayanan
  /// et al. 2021 §2.2.2). With vpp > 1 each stage's work per micro-batch runs as vpp chunks of 1/vpp of it, which cuts
  /// the bubble to (pp - 1)(f + b) / vpp and sends vpp times as many messages between stages.
  int vpp = 1;
  /// Context parallelism (Megatron-Core --context-parallel-size; Liu et al. 2023 ring attention as Transformer
  /// Engine runs it): each micro-batch's sequence is split over cp ranks, tokens per rank seq_len / cp; the ranks
  /// exchange K and V around a ring in every layer's attention (algorithms/ModelParallelWork.cpp), and gradients are
  /// reduced over the dp x cp ranks (grad_group()). dp counts the data-parallel replicas only: the batch splits dp ways.
  int cp = 1;
  /// Ranks a data-parallel collective runs among, and that shard a sharded optimizer: data and context parallelism
  /// together (Megatron-Core's get_data_parallel_group(with_context_parallel=True)).
  int grad_group() const { return dp * cp; }
  int gpus_per_node = 1;
  int dp_per_node = 1;           // data-parallel peers on one node (of the dp x cp gradient group)
  int nodes = 1;
  std::uint64_t global_batch = 1;
  std::uint64_t micro_batch = 1;
  int grad_accumulation = 1;     // micro-batches per step per data-parallel rank
  int seq_len = 0;
  int hidden = 0;
  int layers = 0;
  int tensors = 0;               // parameter tensors (layer-wise optimizers launch one kernel each)
  double grad_bytes = 2;         // bytes per gradient value in the workload's mixed-precision recipe
  int ep = 1;                    // expert-parallel degree: each group of ep data-parallel ranks splits the experts
  /// The workload's transformer architecture, when it gives one: model-parallel message sizes come from it.
  std::optional<TransformerArchitecture> architecture;
  bool merge_node_pairs = false; // FAST fidelity on a cluster where sim::merge_node_pairs is exact (set by the caller)
  OverlapSettings overlap;       // what the modelled system overlaps (the engine reads it; plans only flag ops)
  /// Activation recomputation: every backward pass first runs again the part of its micro-batch's forward the mode
  /// names (Chen et al. 2016; Korthikanti et al. 2022 §2 and §5); the engine charges it in each backward
  /// (sim::ComputeTimes::recompute_s).
  Recompute recompute = Recompute::NONE;
  /// Megatron's sequence parallelism (Korthikanti §4.2.2; the workload's defaults.sequence_parallel, with tp > 1).
  bool sequence_parallel = false;
  /// Megatron-Core's --tp-comm-overlap (needs tp > 1 and sequence parallelism): each layer's tensor-parallel
  /// all-gathers and reduce-scatters run beside the GEMMs that consume or produce them (CommOp::beside_gemms).
  bool tp_overlap = false;
  /// Pipeline sends of a model-parallel (Megatron-style) step block their stage (PipelineComm::blocking_sends); from
  /// the workload's defaults.pipeline_p2p, "blocking" unless it says "overlapped".
  bool pipeline_sends_block = false;
  /// The ZeRO stage (Rajbhandari et al. 2020 §5): 1 shards the optimizer state over dp, 2 the gradients too (reduced
  /// every micro-batch), 3 the weights too (gathered per layer in every forward and backward pass); 0 none.
  int zero_stage = 0;
};

/// Whether `op` runs hidden under compute in a step of `shape`: a per-layer collective of ZeRO-3, tensor-parallel
/// collectives beside their GEMMs, an exchange beside the next steps, a flagged gradient reduction with bucketed
/// overlap, or a flagged weight all-gather with parameter prefetch.
inline bool hidden_under_compute(const CommOp& op, const StepShape& shape)
{
  return op.per_layer != LayerPass::NONE || !op.beside_gemms.empty() || op.overlap_steps > 0 ||
         (op.overlap_backward && shape.overlap.grad_reduction == GradReduction::BUCKETED) ||
         (op.prefetch_forward && shape.overlap.param_prefetch);
}

/// The bucket size a hidden op runs in: the whole op for collectives beside GEMMs (timed once, shared out by bytes) and
/// for an exchange beside the next steps, one
/// layer's share of it for a per-layer collective (the model's layers on this rank), else the run's bucket size
/// (OverlapSettings::bucket_bytes).
inline std::uint64_t hidden_bucket_bytes(const CommOp& op, const StepShape& shape)
{
  if (!op.beside_gemms.empty() || op.overlap_steps > 0)
    return std::max<std::uint64_t>(1, op.bytes);
  if (op.per_layer == LayerPass::NONE)
    return shape.overlap.bucket_bytes;
  const auto layers = static_cast<std::uint64_t>(std::max(1, shape.layers / std::max(1, shape.pp)));
  return std::max<std::uint64_t>(1, (op.bytes + layers - 1) / layers);
}

/// How many times a hidden op runs per step: a per-layer collective once per micro-batch, any other once.
inline std::uint64_t hidden_runs_per_step(const CommOp& op, const StepShape& shape)
{
  return op.per_layer == LayerPass::NONE ? 1 : static_cast<std::uint64_t>(std::max(1, shape.grad_accumulation));
}

} // namespace ccsim::sim
