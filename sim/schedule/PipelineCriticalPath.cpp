// The comm-free GPipe critical path (sim/schedule/PipelineCriticalPath.hpp): the schedule's recurrence over stages and
// micro-batches, O(pp x m) per chain.
#include "sim/schedule/PipelineCriticalPath.hpp"

#include "sim/compute/CostModel.hpp"
#include "sim/layout/PipelineGroups.hpp"
#include "sim/schedule/PipelineSchedule.hpp"

#include <algorithm>

namespace ccsim::sim {

double gpipe_makespan_s(const std::vector<double>& forward_s, const std::vector<double>& backward_s, int m)
{
  const std::size_t pp = forward_s.size();
  std::vector<double> fwd(pp, 0.0), bwd(pp, 0.0); // end of each stage's latest forward / backward
  for (int i = 0; i < m; ++i)
    for (std::size_t s = 0; s < pp; ++s)
      fwd[s] = std::max(fwd[s], s > 0 ? fwd[s - 1] : 0.0) + forward_s[s];
  bwd = fwd; // a stage's backwards follow its forwards
  for (int i = 0; i < m; ++i)
    for (std::size_t k = pp; k-- > 0;)
      bwd[k] = std::max(bwd[k], k + 1 < pp ? bwd[k + 1] : 0.0) + backward_s[k];
  return pp > 0 ? bwd[0] : 0.0;
}

double comm_free_pipeline_s(const StepContext& c, const PhasePlan& phase)
{
  double kernel_s = 0; // per send or receive side, as run_pipeline charges it
  for (const auto& k : phase.pipeline->kernels_per_micro_batch)
    kernel_s += kernel_seconds(*c.topo, k);
  kernel_s /= 2;
  const int m      = pipeline_units(c); // micro-batches x model chunks, each chunk 1/vpp of the stage's work
  const double chunk = 1.0 / std::max(1, c.shape.vpp);
  const int pp   = c.layout.pp;
  const bool own = !c.rank_inverse_scale.empty();
  // Without per-GPU speeds every chain is the same: one is enough.
  const auto chains = own ? pipeline_chains(c.layout) : std::vector<std::vector<int>>{std::vector<int>(pp, 0)};
  double slowest    = 0;
  for (const auto& ranks : chains) {
    std::vector<double> f(pp), b(pp);
    for (int s = 0; s < pp; ++s) {
      // The same work as stage_actor (sim/schedule/PipelineSchedule.cpp) charges per micro-batch: the end stages send or
      // receive once per direction, the middle ones both.
      const double inverse = own ? c.rank_inverse_scale[static_cast<std::size_t>(ranks[s])] : 1;
      const double kernel  = kernel_s * (own ? inverse : c.kernel_factor) * ((s > 0) + (s < pp - 1));
      f[s] = chunk * (own ? c.nominal.forward_s * c.noise_factor * inverse : c.compute.forward_s) + kernel;
      b[s] = chunk * (own ? c.nominal.backward_s * c.noise_factor * inverse : c.compute.backward_s) + kernel;
    }
    slowest = std::max(slowest, gpipe_makespan_s(f, b, m));
  }
  return slowest;
}

} // namespace ccsim::sim
