// The comm-free GPipe critical path (sim/schedule/PipelineCriticalPath.hpp): the schedule's recurrence over stages and
// micro-batches, O(pp x m) per chain.
#include "sim/schedule/PipelineCriticalPath.hpp"

#include "sim/compute/CostModel.hpp"
#include "sim/layout/PipelineGroups.hpp"
#include "sim/schedule/PipelineSchedule.hpp"

#include <algorithm>

namespace ccsim::sim {

double pipeline_makespan_s(const StageTimes& t, int m)
{
  const std::size_t pp = t.forward_s.size();
  if (pp == 0)
    return 0;
  auto sends = [](const std::vector<double>& d, std::size_t s) { return s < d.size() ? d[s] : 0.0; };
  std::vector<double> done(pp, 0.0), sent(pp, 0.0); // end of each stage's latest unit / latest send
  // Forward: stage s's unit i needs stage s - 1's send of unit i, which the same pass of i has just computed.
  for (int i = 0; i < m; ++i)
    for (std::size_t s = 0; s < pp; ++s) {
      const double free = t.blocking_sends && s + 1 < pp ? std::max(done[s], sent[s]) : done[s];
      done[s]           = std::max(free, s > 0 ? sent[s - 1] : 0.0) + t.forward_s[s];
      if (s + 1 < pp)
        sent[s] = std::max(sent[s], done[s]) + sends(t.send_forward_s, s);
    }
  // A stage's backwards start once its forward sends are out (the schedule joins its sender).
  for (std::size_t s = 0; s < pp; ++s)
    sent[s] = done[s] = s + 1 < pp ? std::max(done[s], sent[s]) : done[s];
  for (int i = 0; i < m; ++i)
    for (std::size_t k = pp; k-- > 0;) {
      const double free = t.blocking_sends && k > 0 ? std::max(done[k], sent[k]) : done[k];
      done[k]           = std::max(free, k + 1 < pp ? sent[k + 1] : 0.0) + t.backward_s[k];
      if (k > 0)
        sent[k] = std::max(sent[k], done[k]) + sends(t.send_backward_s, k);
    }
  double end = 0;
  for (std::size_t s = 0; s < pp; ++s)
    end = std::max({end, done[s], s > 0 ? sent[s] : 0.0});
  return end;
}

double gpipe_makespan_s(const std::vector<double>& forward_s, const std::vector<double>& backward_s, int m)
{
  return pipeline_makespan_s(StageTimes{forward_s, backward_s, {}, {}, false}, m);
}

double pipeline_kernel_side_s(const StepContext& c, const PhasePlan& phase)
{
  double kernel_s = 0;
  for (const auto& k : phase.pipeline->kernels_per_micro_batch)
    kernel_s += kernel_seconds(*c.topo, k);
  return kernel_s / 2; // the listed kernels cover one send and one receive side; each side pays half
}

StageTimes chain_stage_work(const StepContext& c, const std::vector<int>& ranks, double kernel_s)
{
  const double chunk = 1.0 / std::max(1, c.shape.vpp);
  const int pp       = c.layout.pp;
  const bool own     = !c.rank_inverse_scale.empty();
  StageTimes t;
  t.forward_s.resize(static_cast<std::size_t>(pp));
  t.backward_s.resize(static_cast<std::size_t>(pp));
  for (int s = 0; s < pp; ++s) {
    // The same work as stage_actor (sim/schedule/PipelineSchedule.cpp) charges per unit: the end stages send or
    // receive once per direction, the middle ones both.
    const double inverse = own ? c.rank_inverse_scale[static_cast<std::size_t>(ranks[static_cast<std::size_t>(s)])] : 1;
    const double kernel  = kernel_s * (own ? inverse : c.kernel_factor) * ((s > 0) + (s < pp - 1));
    t.forward_s[static_cast<std::size_t>(s)] =
        chunk * (own ? c.nominal.forward_s * c.noise_factor * inverse : c.compute.forward_s) + kernel;
    t.backward_s[static_cast<std::size_t>(s)] =
        chunk * (own ? c.nominal.backward_s * c.noise_factor * inverse : c.compute.backward_s) + kernel;
  }
  return t;
}

double comm_free_pipeline_s(const StepContext& c, const PhasePlan& phase)
{
  const double kernel_s = pipeline_kernel_side_s(c, phase);
  const int pp          = c.layout.pp;
  // Without per-GPU speeds every chain is the same: one is enough.
  const auto chains = !c.rank_inverse_scale.empty() ? pipeline_chains(c.layout)
                                                    : std::vector<std::vector<int>>{std::vector<int>(pp, 0)};
  double slowest = 0;
  for (const auto& ranks : chains)
    slowest = std::max(slowest, pipeline_makespan_s(chain_stage_work(c, ranks, kernel_s), pipeline_units(c)));
  return slowest;
}

} // namespace ccsim::sim
