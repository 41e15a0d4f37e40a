// Pricing the kernel lists and assembling a pipeline stage from them.
#include "sim/compute/OperatorCost.hpp"

#include <algorithm>
#include <cassert>

namespace ccsim::sim {

BlockCost price_ops(const std::vector<OpSpec>& ops, const GpuSpec& gpu)
{
  assert(gpu.compute.has_value());
  const GpuCompute& c = *gpu.compute;
  BlockCost out;
  for (const OpSpec& op : ops) {
    KernelCost cost;
    switch (op.kind) {
    case OpKind::GEMM: cost = gemm_cost(op.gemm, op.operands, op.precision, c, gpu.memory_bytes_per_s); break;
    case OpKind::ATTENTION:
      cost = flash_attention_cost(op.flops, op.bytes, op.pass == Pass::BACKWARD, op.precision, c, gpu.memory_bytes_per_s);
      break;
    case OpKind::ELEMENTWISE: cost = elementwise_cost(op.bytes, c, gpu.memory_bytes_per_s); break;
    }
    switch (op.pass) {
    case Pass::FORWARD:
      out.forward_s += cost.seconds;
      out.forward_flops += cost.flops;
      break;
    case Pass::BACKWARD:
      out.backward_s += cost.seconds;
      out.backward_flops += cost.flops;
      break;
    case Pass::RECOMPUTE:
      out.recompute_s += cost.seconds;
      out.recompute_flops += cost.flops;
      break;
    }
    out.ops.push_back({op, cost});
  }
  return out;
}

std::vector<int> stage_layers(int layers, int pp)
{
  assert(pp >= 1 && layers >= 1);
  std::vector<int> out(static_cast<std::size_t>(pp), layers / pp);
  int heavier = layers % pp; // stages that take one more layer: every stage but the first and the last first
  for (int i = 1; i + 1 < pp && heavier > 0; ++i, --heavier)
    ++out[static_cast<std::size_t>(i)];
  if (heavier > 0 && pp > 1) { // pp - 1 heavier stages: the first takes one, the last stays lighter
    ++out.front();
    --heavier;
  }
  if (heavier > 0) // pp == 1 never gets here (layers % 1 == 0)
    ++out.back();
  return out;
}

bool chunks_are_whole(int layers, int pp, int vpp, bool embedding_slots)
{
  assert(pp >= 1 && vpp >= 1 && layers >= 1);
  const int chunks = pp * vpp;
  // Where the layers divide the stages, stage_layers splits them evenly, so the chunks cut layers alone. Otherwise
  // every stage holds (layers + 2) / pp slots, the first and the last one layer fewer (pp == 1 always divides).
  if (layers % pp == 0)
    return layers % chunks == 0;
  return embedding_slots && (layers + 2) % chunks == 0;
}

ModelCompute model_compute(const TransformerArchitecture& arch, const ComputeSplit& split, int pp, const GpuSpec& gpu)
{
  ModelCompute m;
  m.layer            = price_ops(layer_ops(arch, split), gpu);
  m.embedding        = price_ops(embedding_ops(arch, split), gpu);
  m.output           = price_ops(output_ops(arch, split), gpu);
  m.layers_per_stage = stage_layers(static_cast<int>(arch.layers), pp);
  for (int i = 0; i < pp; ++i) {
    StageCost s;
    s.stage  = i;
    s.layers = m.layers_per_stage[static_cast<std::size_t>(i)];
    s.forward_s   = s.layers * m.layer.forward_s;
    s.backward_s  = s.layers * m.layer.backward_s;
    s.recompute_s = s.layers * m.layer.recompute_s;
    if (i == 0) {
      s.forward_s += m.embedding.forward_s;
      s.backward_s += m.embedding.backward_s;
    }
    if (i == pp - 1) {
      s.forward_s += m.output.forward_s;
      s.backward_s += m.output.backward_s;
    }
    if (i == 0 || s.total_s() > m.slowest.total_s())
      m.slowest = s;
  }
  return m;
}

} // namespace ccsim::sim
