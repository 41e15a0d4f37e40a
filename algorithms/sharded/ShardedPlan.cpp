// Sharded-DP plans; message sizes from numerics::group_quantized_bytes (codes + one fp32 scale per group).
#include "algorithms/sharded/ShardedPlan.hpp"

#include "algorithms/PlanHelpers.hpp"
#include "numerics/QuantizedSizes.hpp"

#include <algorithm>
#include <stdexcept>
#include <variant>

namespace ccsim::algorithms {

using sim::Collective;
using sim::GroupKind;

ShardedPlan::ShardedPlan(std::string name, WeightComm weights, GradComm grads)
    : name_(std::move(name)), weights_(weights), grads_(grads)
{
}

std::vector<ParamSpec> ShardedPlan::param_specs() const
{
  // Group sizes from the SDP4Bit paper scripts (notes §7): weights 2048, gradients 128.
  return {{"weight_group", 2048, "values per scale for weight quantization", {8, 1e9}, true},
          {"grad_group", 128, "values per scale for gradient quantization", {8, 1e9}, true}};
}

std::vector<sim::Op> sharded_gradient_ops(GradComm grads, std::size_t n, std::uint64_t g, std::size_t gg)
{
  const std::uint64_t fp32 = 4ull * n;
  // The quantization kernels count in allreduce_ms with the all-to-alls: SDP4Bit Table 4 times them together.
  std::vector<sim::Op> ops;
  switch (grads) {
  case GradComm::FP32_REDUCE_SCATTER:
    // Megatron's distributed optimizer reduce-scatters fp32 gradients (grad_buffer.py is fp32; notes §7.3).
    ops.push_back(under_backward(
        collective("reduce-scatter gradients (fp32)", Collective::REDUCE_SCATTER, GroupKind::DATA_PARALLEL, fp32)));
    break;
  case GradComm::TLQ:
  case GradComm::TLQ_HS: {
    // Stage 1: 8-bit all-to-all among the g DP peers of a node; each rank dequantizes and sums its 1/g.
    // Stage 2: that 1/g, re-quantized to 4 bits, all-to-all among same-position peers on the other nodes.
    // With one DP rank per node (TP = GPUs per node) stage 1 has no peers and the whole buffer goes to stage 2.
    const bool hs = grads == GradComm::TLQ_HS;
    ops.push_back(synchronisation_kernel(hs ? "hadamard32_quant_int8" : "quant_int8_g128", fp32));
    ops.push_back(collective("intra-node all-to-all gradients (8-bit)", Collective::ALL_TO_ALL, GroupKind::DP_INTRA_NODE,
                             numerics::group_quantized_bytes(n, 8, gg)));
    ops.push_back(synchronisation_kernel("dequant_reduce_quant_int4", fp32));
    ops.push_back(collective("inter-node all-to-all gradients (4-bit)", Collective::ALL_TO_ALL, GroupKind::DP_INTER_NODE,
                             numerics::group_quantized_bytes(n / g, 4, gg)));
    ops.push_back(synchronisation_kernel(hs ? "dequant_reduce_hadamard32" : "dequant_reduce", fp32 / g));
    break;
  }
  case GradComm::ULQ_INT4:
    // One level: 4-bit all-to-all over the whole DP group, then dequantize and sum (SDP4Bit §4.2 "ULq").
    ops.push_back(synchronisation_kernel("quant_int4_g128", fp32));
    ops.push_back(collective("all-to-all gradients (4-bit)", Collective::ALL_TO_ALL, GroupKind::DATA_PARALLEL,
                             numerics::group_quantized_bytes(n, 4, gg)));
    ops.push_back(synchronisation_kernel("dequant_reduce", fp32));
    break;
  case GradComm::QGZ_INT4:
    // ZeRO++ qgZ: 4-bit both stages, re-quantized between them (notes §5.3).
    ops.push_back(synchronisation_kernel("quant_int4_g128", fp32));
    ops.push_back(collective("intra-node all-to-all gradients (4-bit)", Collective::ALL_TO_ALL, GroupKind::DP_INTRA_NODE,
                             numerics::group_quantized_bytes(n, 4, gg)));
    ops.push_back(synchronisation_kernel("dequant_reduce_quant_int4", fp32));
    ops.push_back(collective("inter-node all-to-all gradients (4-bit)", Collective::ALL_TO_ALL, GroupKind::DP_INTER_NODE,
                             numerics::group_quantized_bytes(n / g, 4, gg)));
    ops.push_back(synchronisation_kernel("dequant_reduce", fp32 / g));
    break;
  }

  return ops;
}

std::vector<sim::Op> sharded_weight_ops(WeightComm weights, std::size_t n, std::uint64_t dp, std::size_t wg)
{
  std::vector<sim::Op> ops;
  switch (weights) {
  case WeightComm::BF16:
    ops.push_back(prefetchable(collective("all-gather weights (bf16)", Collective::ALL_GATHER, GroupKind::DATA_PARALLEL,
                                          2ull * n, /*synchronisation=*/false)));
    break;
  case WeightComm::QWD_INT4:
    // qWD: the difference to the previous bf16 model, 4-bit (SDP4Bit §4.1; sub_quantize.cu / dequantize_add.cu).
    ops.push_back(kernel("quant_int4_g128", 2ull * n / dp));
    ops.push_back(collective("all-gather weight differences (4-bit)", Collective::ALL_GATHER, GroupKind::DATA_PARALLEL,
                             numerics::group_quantized_bytes(n, 4, wg), /*synchronisation=*/false));
    ops.push_back(kernel("dequant_add", 2ull * n));
    break;
  case WeightComm::QW_INT4:
    ops.push_back(kernel("quant_int4_g128", 2ull * n / dp));
    ops.push_back(collective("all-gather weights (4-bit)", Collective::ALL_GATHER, GroupKind::DATA_PARALLEL,
                             numerics::group_quantized_bytes(n, 4, wg), /*synchronisation=*/false));
    ops.push_back(kernel("dequant_int4", 2ull * n));
    break;
  case WeightComm::QWZ_INT8:
    // ZeRO++ qwZ: int8 blocks of about 8000 values (partition_parameters.py, notes §5.2).
    ops.push_back(kernel("quant_int8_g128", 2ull * n / dp));
    ops.push_back(collective("all-gather weights (8-bit)", Collective::ALL_GATHER, GroupKind::DATA_PARALLEL,
                             numerics::group_quantized_bytes(n, 8, 8000), /*synchronisation=*/false));
    ops.push_back(kernel("dequant_int8", 2ull * n));
    break;
  }
  return ops;
}

namespace {
/// `ops` run `times` times, as one op of `times` the bytes each (a collective of m times the bytes takes m times as
/// long less m - 1 latencies: the difference is the latency, microseconds against the seconds of a step's reductions).
std::vector<sim::Op> repeated(std::vector<sim::Op> ops, std::uint64_t times)
{
  for (auto& op : ops) {
    if (auto* comm = std::get_if<sim::CommOp>(&op))
      comm->bytes *= times;
    else if (auto* k = std::get_if<sim::KernelOp>(&op))
      k->bytes *= times;
  }
  return ops;
}

sim::CommOp per_layer(sim::CommOp op, sim::LayerPass pass)
{
  op.per_layer = pass;
  return op;
}

/// ZeRO-3's weight gathers of one pass: each layer's weights before it computes, `n` values of this rank's model
/// slice per pass, compressed as `weights` says; kernels around them once per micro-batch, `m` per step.
std::vector<sim::Op> stage3_weight_ops(WeightComm weights, std::size_t n, std::uint64_t dp, std::size_t wg,
                                       sim::LayerPass pass, std::uint64_t m)
{
  const bool forward = pass == sim::LayerPass::FORWARD;
  std::vector<sim::Op> ops;
  switch (weights) {
  case WeightComm::BF16:
    ops.push_back(per_layer(collective(forward ? "all-gather weights per layer, forward (bf16)"
                                               : "all-gather weights per layer, backward (bf16)",
                                       Collective::ALL_GATHER, GroupKind::DATA_PARALLEL, 2ull * n, false),
                            pass));
    break;
  case WeightComm::QWZ_INT8:
    if (!forward) {
      // hpZ: the forward's gathered weights are kept as a secondary bf16 partition over the node's GPUs, so the
      // backward gathers inside the node, unquantized (ZeRO++ §3.2; partition_parameters.py, notes §5.5).
      ops.push_back(per_layer(collective("all-gather weights per layer, backward (hpZ, intra-node bf16)",
                                         Collective::ALL_GATHER, GroupKind::DP_INTRA_NODE, 2ull * n, false),
                              pass));
      break;
    }
    // qwZ: int8 blocks of about 8000 values, quantized by each owner before every gather (ZeRO++ §3.1; notes §5.2).
    ops.push_back(kernel("quant_int8_g128", 2ull * n / dp * m));
    ops.push_back(per_layer(collective("all-gather weights per layer, forward (qwZ, 8-bit)", Collective::ALL_GATHER,
                                       GroupKind::DATA_PARALLEL, numerics::group_quantized_bytes(n, 8, 8000), false),
                            pass));
    ops.push_back(kernel("dequant_int8", 2ull * n * m));
    break;
  case WeightComm::QW_INT4:
    ops.push_back(kernel("quant_int4_g128", 2ull * n / dp * m));
    ops.push_back(per_layer(collective(forward ? "all-gather weights per layer, forward (4-bit)"
                                               : "all-gather weights per layer, backward (4-bit)",
                                       Collective::ALL_GATHER, GroupKind::DATA_PARALLEL,
                                       numerics::group_quantized_bytes(n, 4, wg), false),
                            pass));
    ops.push_back(kernel("dequant_int4", 2ull * n * m));
    break;
  case WeightComm::QWD_INT4:
    // qWD adds the gathered difference to the previous full model, which ZeRO-3 does not keep (SDP4Bit §2: "ZeRO-3
    // and FSDP release the collected weights after each computation"; its weight reduction suits Megatron-LM's).
    throw std::invalid_argument("4-bit weight differences need the whole previous model on every rank: not at ZeRO "
                                "stage 3");
  }
  return ops;
}
} // namespace

sim::StepPlan ShardedPlan::plan(const sim::StepShape& s, const ParamValues& p) const
{
  const auto wg          = static_cast<std::size_t>(checked(p, "weight_group", 8, 1e9));
  const auto gg          = static_cast<std::size_t>(checked(p, "grad_group", 8, 1e9));
  const std::size_t n    = s.params_per_rank; // this rank's model slice (tp·pp split); sharded over dp below
  // "dp" here is the gradient group: data and context parallelism together (dp x cp; StepShape::grad_group).
  const auto dp          = static_cast<std::uint64_t>(s.grad_group());
  const auto g           = static_cast<std::uint64_t>(std::max(1, s.dp_per_node)); // DP peers inside a node
  sim::PhasePlan phase{"sharded", 1.0, {}, std::nullopt};
  auto& ops = phase.ops;

  // --- gradients: reduce to this rank's shard; the sharded AdamW update of its 1/dp; every rank gathers the
  // updated model slice
  auto append = [&](std::vector<sim::Op> more) { ops.insert(ops.end(), more.begin(), more.end()); };
  const auto m = static_cast<std::uint64_t>(std::max(1, s.grad_accumulation));
  if (s.zero_stage == 3) {
    // ZeRO-3 / FSDP full_shard (Rajbhandari et al. 2020 §5.3): no rank keeps the whole model slice. Every
    // micro-batch gathers each layer's weights before its forward and again before its backward (resharded after
    // the forward), and reduce-scatters each layer's gradients in the workload's gradient dtype as its backward
    // produces them: 3 x n x (dp - 1) / dp values per micro-batch go over the wire from each rank uncompressed.
    append(stage3_weight_ops(weights_, n, dp, wg, sim::LayerPass::FORWARD, m));
    append(stage3_weight_ops(weights_, n, dp, wg, sim::LayerPass::BACKWARD, m));
    if (grads_ == GradComm::FP32_REDUCE_SCATTER) {
      const auto bytes = static_cast<std::uint64_t>(static_cast<double>(n) * s.grad_bytes);
      ops.push_back(per_layer(collective("reduce-scatter gradients per layer", Collective::REDUCE_SCATTER,
                                         GroupKind::DATA_PARALLEL, bytes),
                              sim::LayerPass::BACKWARD));
    } else { // a compressed reduction needs its quantization kernels around it: after each micro-batch's backward
      append(repeated(sharded_gradient_ops(grads_, n, g, gg), m));
    }
    ops.push_back(optimizer("adam", n / dp));
    add_model_parallel_work(phase, s);
    return {{phase}};
  }
  // ZeRO-2 keeps only its gradient shard, so it reduces every micro-batch (DeepSpeed stage_1_and_2.py reduces in
  // the backward hooks of each micro-batch); ZeRO-1 and Megatron's distributed optimizer once per step.
  append(repeated(sharded_gradient_ops(grads_, n, g, gg), s.zero_stage == 2 ? m : 1));
  ops.push_back(optimizer("adam", n / dp));
  append(sharded_weight_ops(weights_, n, dp, wg));
  add_model_parallel_work(phase, s);
  return {{phase}};
}

} // namespace ccsim::algorithms
