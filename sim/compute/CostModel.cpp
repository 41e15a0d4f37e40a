// The cost model: a measured profile wins over a rate, because the rates are what ccsim falls back on for hardware
// nobody has measured; among the rates, a sustained FLOP/s the topology sets overrides the per-operator model (the
// papers' presets were calibrated with one).
#include "sim/compute/CostModel.hpp"

#include "io/InputError.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace ccsim::sim {

namespace {
/// The share of a micro-batch's forward FLOPs that recomputation runs again: all of it (full), the attention core of
/// every layer (selective, Korthikanti §5), none. Used where time is FLOPs over a rate.
double recompute_share(const Workload& workload, const ComputeSplit& split, int layers)
{
  if (split.recompute == Recompute::FULL)
    return 1;
  if (split.recompute == Recompute::NONE || !workload.architecture)
    return 0;
  double layer_forward = 0, layer_recompute = 0, output_forward = 0;
  for (const OpSpec& op : layer_ops(*workload.architecture, split)) {
    if (op.pass == Pass::FORWARD)
      layer_forward += op.flops;
    else if (op.pass == Pass::RECOMPUTE)
      layer_recompute += op.flops;
  }
  for (const OpSpec& op : output_ops(*workload.architecture, split))
    if (op.pass == Pass::FORWARD)
      output_forward += op.flops;
  return layers * layer_recompute / (layers * layer_forward + output_forward);
}
} // namespace

TransformerArchitecture priced_architecture(const Workload& w)
{
  if (w.architecture)
    return *w.architecture;
  TransformerArchitecture a;
  a.layers          = w.layers;
  a.hidden          = w.hidden;
  a.heads           = w.heads;
  a.kv_heads        = w.heads;
  a.head_dim        = std::max<std::int64_t>(1, w.hidden / w.heads);
  a.ffn_hidden      = 4 * std::int64_t{w.hidden};
  a.activation      = Activation::GELU;
  a.norm            = Norm::LAYERNORM;
  a.vocab           = w.vocab;
  a.seq_len         = w.seq_len;
  a.linear_bias     = true;
  a.positions       = Positions::LEARNED;
  a.flash_attention = false;
  a.dropout         = true;
  a.attention_flops = AttentionFlops::FULL;
  return a;
}

ComputeSplit compute_split(const Topology& topo, const Workload& workload, const StepShape& shape)
{
  ComputeSplit split;
  split.micro_batch       = shape.micro_batch;
  split.seq_len           = shape.seq_len > 0 ? shape.seq_len : workload.seq_len;
  split.tp                = shape.tp;
  split.sequence_parallel = workload.sequence_parallel && shape.tp > 1;
  split.cp                = std::max(1, shape.cp);
  split.ep                = shape.ep;
  split.recompute         = shape.recompute;
  split.precision         = workload.precision.value_or(topo.gpu.compute ? topo.gpu.compute->default_precision()
                                                                         : Precision::BF16);
  return split;
}

bool priced_per_operator(const Topology& topo, const Workload& workload, const StepShape& shape)
{
  const auto seq = static_cast<int>(shape.seq_len > 0 ? shape.seq_len : workload.seq_len);
  // A profile measured whole sequences on each GPU: a context-parallel split is priced from the model (compute_times).
  return !topo.gpu.sustained_flops && topo.gpu.compute &&
         (shape.cp > 1 || !workload.find_compute(topo.gpu.name, shape.micro_batch, seq, shape.tp, topo.software));
}

ComputeTimes compute_times(const Topology& topo, const Workload& workload, const StepShape& shape)
{
  const ComputeSplit split = compute_split(topo, workload, shape);
  const int seq            = static_cast<int>(split.seq_len);
  // A profile measured whole sequences on each GPU: a context-parallel split is priced from the model instead.
  const auto p = split.cp > 1 ? std::nullopt
                              : workload.find_compute(topo.gpu.name, shape.micro_batch, seq, shape.tp, topo.software);
  if (p) {
    // A profile with pp stages gives one stage's time; spread the whole model over this run's stages.
    const double stages = static_cast<double>(p->pp) / shape.pp;
    const double forward = p->forward_s * stages;
    return {forward, p->backward_s * stages, forward * recompute_share(workload, split, workload.layers),
            "profile: " + p->source, std::nullopt, split.precision};
  }
  if (topo.gpu.sustained_flops) {
    // The topology's one rate for every FLOP: model FLOPs over it; backward costs twice the forward.
    const double flops   = workload.flops_per_sample_at(seq) * static_cast<double>(shape.micro_batch);
    const double seconds = flops / (*topo.gpu.sustained_flops * shape.tp * shape.pp * split.cp);
    ComputeTimes t{seconds / 3, 2 * seconds / 3, seconds / 3 * recompute_share(workload, split, workload.layers),
                   fmt::format("flops: {:.3g} FLOP/sample at {:.3g} TFLOP/s sustained", workload.flops_per_sample,
                               *topo.gpu.sustained_flops / 1e12),
                   std::nullopt, split.precision};
    if (workload.architecture) { // the attention kernels' FLOPs at the same rate (the ring runs beside them)
      for (const OpSpec& op : layer_ops(*workload.architecture, split))
        if (op.kind == OpKind::ATTENTION)
          (op.pass == Pass::FORWARD ? t.attention_forward_s : t.attention_backward_s) +=
              op.pass == Pass::RECOMPUTE ? 0 : op.flops / *topo.gpu.sustained_flops;
    }
    return t;
  }
  // Per operator: the slowest pipeline stage's kernels. A workload without an architecture is priced as GPT layers
  // of its sizes and scaled to its own FLOP count.
  const TransformerArchitecture arch = priced_architecture(workload);
  const ModelCompute model           = model_compute(arch, split, shape.pp, topo.gpu);
  const double scale = workload.architecture ? 1 : workload.flops_per_sample_at(seq) / flops_per_sample(arch, seq);
  const StageCost& stage = model.slowest;
  // A stack other than Megatron-LM runs every kernel of the micro-batch at its share of the rate; the operators'
  // breakdown (t.operators) stays the kernels as the constants price them.
  const double stack = 1 / framework_efficiency(topo, workload);
  ComputeTimes t;
  t.forward_s   = stage.forward_s * scale * stack;
  t.backward_s  = stage.backward_s * scale * stack;
  t.recompute_s = stage.recompute_s * scale * stack;
  for (const PricedOp& op : model.layer.ops)
    if (op.op.kind == OpKind::ATTENTION && op.op.pass != Pass::RECOMPUTE)
      (op.op.pass == Pass::FORWARD ? t.attention_forward_s : t.attention_backward_s) += op.cost.seconds * scale * stack;
  t.precision   = split.precision;
  t.source      = fmt::format("operators: {} GEMMs, stage {} of {} ({} layers{}{}), recompute {}{}{}", to_string(split.precision),
                              stage.stage + 1, shape.pp, stage.layers, stage.stage == 0 ? ", embedding" : "",
                              stage.stage == shape.pp - 1 ? ", output layer" : "", to_string(split.recompute),
                              workload.architecture ? ""
                                                    : fmt::format(", as GPT layers of the workload's sizes x {:.3g} "
                                                                  "(its FLOPs over theirs)",
                                                                  scale),
                              stack == 1 ? "" : fmt::format(", at {:.4g} of the rate for {} (gpu.compute.framework_efficiency)",
                                                            1 / stack, workload.framework));
  t.operators = model;
  return t;
}

double framework_efficiency(const Topology& topo, const Workload& workload)
{
  if (workload.framework == REFERENCE_FRAMEWORK)
    return 1;
  const auto& factors = topo.gpu.compute->framework_efficiency;
  const auto it       = factors.find(workload.framework);
  if (it == factors.end())
    throw io::InputError(topo.path.empty() ? topo.name : topo.path, "/gpu/compute/framework_efficiency",
                         fmt::format("has no entry for {}, the run's training stack: its kernels' rate on this GPU "
                                     "is known for Megatron-LM only",
                                     workload.framework));
  return it->second;
}

double optimizer_seconds(const Topology& topo, const Workload& workload, const OptimizerOp& op)
{
  for (const auto& name : {op.optimizer, op.fallback}) {
    if (name.empty())
      continue;
    if (const auto t = workload.find_optimizer(topo.gpu.name, name, topo.software); t && workload.params > 0)
      return *t * static_cast<double>(op.params) / static_cast<double>(workload.params);
  }
  return static_cast<double>(op.params) * op.bytes_touched_per_param / topo.gpu.memory_bytes_per_s;
}

double kernel_seconds(const Topology& topo, const KernelOp& op)
{
  const auto bytes = static_cast<double>(op.bytes);
  return bytes / topo.gpu.kernel_rate(op.kernel, bytes);
}

} // namespace ccsim::sim
