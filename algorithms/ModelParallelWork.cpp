// Model-parallel communication per step: the papers' GPT closed forms, or the sizes an architecture implies.
#include "algorithms/ModelParallelWork.hpp"

#include "algorithms/PlanHelpers.hpp"

#include <vector>
#include <algorithm>

namespace ccsim::algorithms {

namespace {
/// The papers' workloads: Megatron's GPT layer, every stage the same, no expert parallelism.
void add_closed_form_work(sim::PhasePlan& phase, const sim::StepShape& s)
{
  if (s.pp > 1 && !phase.pipeline) {
    const std::uint64_t activations = 2ull * s.micro_batch * static_cast<std::uint64_t>(s.seq_len) * s.hidden;
    phase.pipeline = sim::PipelineComm{activations, activations, {}, s.pipeline_sends_block};
  }
  if (s.tp < 2)
    return;
  const std::uint64_t per_micro_batch =
      4ull * s.layers / static_cast<std::uint64_t>(s.pp) * s.micro_batch * s.seq_len * s.hidden * 2;
  phase.ops.insert(phase.ops.begin(), collective("tensor-parallel activations", sim::Collective::ALL_REDUCE,
                                                 sim::GroupKind::TENSOR_PARALLEL,
                                                 per_micro_batch * s.grad_accumulation, /*synchronisation=*/false));
}

/// Transformer Engine's default number of chunks a "pipeline" overlap splits its GEMM into (initialize_ub: num_splits
/// 4 where a method is "pipeline"; transformer_engine/pytorch/module/base.py), which Megatron-Core keeps unless its
/// tp_comm_overlap_cfg file says otherwise.
constexpr int kPipelineSplits = 4;

/// Megatron-Core's --tp-comm-overlap with sequence parallelism (Transformer Engine's userbuffers; initialize_ub's
/// default methods): per layer, each all-gather or reduce-scatter of the layer's activations beside its GEMM. Forward:
/// the all-gather before QKV and before FC1 (ring exchange), the reduce-scatter after the output projection and after
/// FC2 (pipeline). Backward: the all-gather of the output gradient before the projection's and FC2's data-gradient
/// GEMMs (ring exchange); the input all-gather the weight gradient needs, beside QKV's and FC1's data-gradient GEMMs,
/// and the reduce-scatter of those data gradients, beside the same layers' weight-gradient GEMMs (bulk). Full
/// recomputation runs the forward's four again. Each moves half an all-reduce's bytes: 10 per layer (14 recomputing),
/// the all-reduce count of add_architecture_work times two.
std::vector<sim::GemmOverlap> tp_overlap_pairs(const sim::StepShape& s, std::uint64_t runs, double share)
{
  using M = sim::GemmOverlapMethod;
  const auto ring = [&](const char* gemm) { return sim::GemmOverlap{gemm, M::RING_EXCHANGE, s.tp, share, runs}; };
  const auto pipe = [&](const char* gemm) { return sim::GemmOverlap{gemm, M::PIPELINE, kPipelineSplits, share, runs}; };
  const auto bulk = [&](const char* gemm) { return sim::GemmOverlap{gemm, M::BULK, 1, share, runs}; };
  std::vector<sim::GemmOverlap> forward = {ring("qkv"), pipe("out_proj"), ring("fc1"), pipe("fc2")};
  std::vector<sim::GemmOverlap> pairs   = forward;
  for (const auto& b : {ring("fc2.dgrad"), bulk("fc1.dgrad"), bulk("fc1.wgrad"), ring("out_proj.dgrad"),
                        bulk("qkv.dgrad"), bulk("qkv.wgrad")})
    pairs.push_back(b);
  if (s.recompute == sim::Recompute::FULL)
    pairs.insert(pairs.end(), forward.begin(), forward.end());
  return pairs;
}

/// A workload with an architecture. Where this differs from the closed form, and why:
/// - the busiest stage holds ceil(layers/pp) layers (the closed form rounds 4·layers/pp down), and it also runs the
///   all-reduce after the vocabulary-parallel embedding (forward, first stage) or of the output head's input
///   gradient (backward, last stage): one more per micro-batch with pp > 1, two with pp = 1 (Shoeybi et al. §3);
/// - with tp > 1 each tensor-parallel rank sends 1/tp of a stage boundary's activations, as Megatron's
///   scatter/gather optimisation and sequence parallelism do (Narayanan et al. 2021 §4.1); the closed form sends it
///   whole from every rank;
/// - a mixture of experts adds the expert-parallel all-to-alls;
/// - full recomputation repeats the forward's two all-reduces per layer, and sequence parallelism re-gathers two
///   inputs per layer in backward (one all-reduce's bytes);
/// - with context parallelism (cp > 1) every rank holds seq_len / cp tokens of each sequence, so its tensor-parallel,
///   pipeline and expert-parallel messages carry those, and each layer's attention exchanges K and V around the cp
///   ring (sim::RingAttention).
void add_architecture_work(sim::PhasePlan& phase, const sim::StepShape& s, const sim::TransformerArchitecture& arch)
{
  const std::uint64_t stage_layers = (static_cast<std::uint64_t>(s.layers) + s.pp - 1) / s.pp;
  const std::uint64_t steps        = static_cast<std::uint64_t>(s.grad_accumulation);
  const std::int64_t local_seq     = s.seq_len / std::max(1, s.cp); // this rank's tokens of each sequence
  if (s.cp > 1) {
    // Ring attention (Transformer Engine's p2p context parallelism; sim/model/CommPlan.hpp, RingAttention): rank i
    // sends to i + 1 in its CONTEXT_PARALLEL group. Recomputation of either kind reruns the attention's forward
    // (selective: the attention core is exactly what Megatron checkpoints), its exchange included.
    sim::RingAttention ring;
    ring.kv_block_bytes = sim::cp_kv_block_bytes(arch, s.micro_batch, s.seq_len, s.tp, s.cp);
    ring.cp             = s.cp;
    ring.layers         = stage_layers;
    ring.micro_batches  = steps;
    ring.recompute      = s.recompute != sim::Recompute::NONE;
    sim::CommOp op = collective("context-parallel K,V ring (attention)", sim::Collective::SEND_RECV,
                                sim::GroupKind::CONTEXT_PARALLEL, ring.bytes_per_step(), /*synchronisation=*/false);
    op.ring        = ring;
    phase.ops.insert(phase.ops.begin(), op);
  }
  const bool own_pipeline          = s.pp > 1 && !phase.pipeline;
  const std::uint64_t whole_boundary = sim::pp_boundary_bytes(arch, s.micro_batch, local_seq);
  if (own_pipeline) {
    const std::uint64_t boundary = whole_boundary / s.tp;
    phase.pipeline               = sim::PipelineComm{boundary, boundary, {}, s.pipeline_sends_block};
  }
  if (s.ep > 1 && arch.moe()) {
    const std::uint64_t per_micro_batch =
        sim::kMoeAllToAllsPerLayer * stage_layers * sim::moe_all_to_all_bytes(arch, s.micro_batch, local_seq);
    phase.ops.insert(phase.ops.begin(), collective("expert-parallel all-to-all (dispatch, combine)",
                                                   sim::Collective::ALL_TO_ALL, sim::GroupKind::EXPERT_PARALLEL,
                                                   per_micro_batch * steps, /*synchronisation=*/false));
  }
  if (s.tp < 2)
    return;
  // Per layer: Megatron's two forward and two backward all-reduces; full recomputation runs the forward's two again
  // (its checkpointed function holds them); sequence parallelism's backward gathers the inputs of QKV and FC1 again
  // (only the local shard was kept: Megatron's LinearWithGradAccumulationAndAsyncCommunication), two all-gathers that
  // move the bytes of one all-reduce.
  const std::uint64_t per_layer = sim::kTpAllReducesPerLayer + (s.recompute == sim::Recompute::FULL ? 2 : 0) +
                                  (s.sequence_parallel ? 1 : 0);
  const std::uint64_t all_reduces = per_layer * stage_layers + (s.pp == 1 ? 2 : 1);
  const std::uint64_t all_reduce      = sim::tp_all_reduce_bytes(arch, s.micro_batch, local_seq);
  const std::uint64_t per_micro_batch = all_reduces * all_reduce;
  auto op = collective("tensor-parallel activations", sim::Collective::ALL_REDUCE, sim::GroupKind::TENSOR_PARALLEL,
                       per_micro_batch * steps, /*synchronisation=*/false);
  if (s.tp_overlap && s.sequence_parallel) // the embedding's and output layer's all-reduces stay exposed
    op.beside_gemms = tp_overlap_pairs(s, stage_layers * steps, 0.5 * static_cast<double>(all_reduce) /
                                                                    static_cast<double>(per_micro_batch * steps));
  phase.ops.insert(phase.ops.begin(), std::move(op));
  if (own_pipeline && !s.sequence_parallel) {
    // The other half of the scatter/gather above: without sequence parallelism every tensor-parallel rank holds the
    // whole boundary tensor, sends 1/tp of it, and the receiving ranks all-gather the pieces over the tensor-parallel
    // group before the next chunk may use it (Narayanan et al. 2021 §4.1; Megatron-LM 2022 p2p_communication.py,
    // gather_split_1d_tensor after the receive; DeepSpeed's pipeline engine, PartitionedTensor.full()). With sequence
    // parallelism the tensor is already split by sequence and nothing is gathered. The busiest stage is an end
    // stage (embedding or output layer): per micro-batch it receives one tensor for each of its vpp chunks one way
    // and one fewer the other (the first virtual stage gets no activation, the last no gradient): 2 vpp - 1.
    const std::uint64_t receives = 2ull * static_cast<std::uint64_t>(std::max(1, s.vpp)) - 1;
    phase.ops.insert(phase.ops.begin(),
                     collective("pipeline receives' tensor-parallel all-gather", sim::Collective::ALL_GATHER,
                                sim::GroupKind::TENSOR_PARALLEL,
                                receives * whole_boundary * steps,
                                /*synchronisation=*/false));
  }
}
} // namespace

void add_model_parallel_work(sim::PhasePlan& phase, const sim::StepShape& shape)
{
  if (shape.architecture)
    add_architecture_work(phase, shape, *shape.architecture);
  else
    add_closed_form_work(phase, shape);
}

} // namespace ccsim::algorithms
