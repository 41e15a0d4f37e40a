// The cost model: a measured profile wins over a rate, because the rates (sustained FLOP/s, kernel GB/s) are what
// ccsim falls back on for hardware nobody has measured.
#include "sim/compute/CostModel.hpp"

#include <fmt/format.h>

namespace ccsim::sim {

ComputeTimes compute_times(const Topology& topo, const Workload& workload, const StepShape& shape)
{
  const int seq = shape.seq_len > 0 ? shape.seq_len : workload.seq_len;
  if (const auto p = workload.find_compute(topo.gpu.name, shape.micro_batch, seq, shape.tp, topo.software)) {
    // A profile with pp stages gives one stage's time; spread the whole model over this run's stages.
    const double stages = static_cast<double>(p->pp) / shape.pp;
    return {p->forward_s * stages, p->backward_s * stages, "profile: " + p->source};
  }
  // No measurement for this GPU: model FLOPs over the sustained rate; backward costs twice the forward.
  const double flops = workload.flops_per_sample_at(seq) * static_cast<double>(shape.micro_batch);
  const double seconds = flops / (topo.gpu.sustained_flops * shape.tp * shape.pp);
  return {seconds / 3, 2 * seconds / 3,
          fmt::format("flops: {:.3g} FLOP/sample at {:.3g} TFLOP/s sustained", workload.flops_per_sample,
                      topo.gpu.sustained_flops / 1e12)};
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
