// The consistency rules of a simulation report; see ReportChecks.hpp. Each rule mirrors a line of
// api/run/Simulation.cpp (which fills the report) or algorithms/MemoryFootprint.hpp (its memory figures).
#include "api/run/ReportChecks.hpp"

#include "api/run/Metrics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

namespace ccsim::api {

namespace {
constexpr double kRelative = 1e-9;

bool same(double a, double b)
{
  return a == b || std::abs(a - b) <= kRelative * std::max(std::abs(a), std::abs(b));
}

/// Collects the first problem; later checks are skipped once one is found.
class Checker {
public:
  const std::string& problem() const { return problem_; }
  bool ok() const { return problem_.empty(); }

  void fail(const std::string& problem)
  {
    if (problem_.empty())
      problem_ = problem;
  }
  /// Finite and >= 0 (or > 0 when `positive`).
  void amount(const std::string& name, double v, bool positive = false)
  {
    if (!std::isfinite(v))
      fail(fmt::format("{} is not a finite number", name));
    else if (positive && !(v > 0))
      fail(fmt::format("{} {} is not positive", name, v));
    else if (v < 0)
      fail(fmt::format("{} {} is negative", name, v));
  }
  void equal(const std::string& name, double got, double expected, const std::string& rule)
  {
    if (!same(got, expected))
      fail(fmt::format("{} {} is not {} = {}", name, got, rule, expected));
  }

private:
  std::string problem_;
};

/// Every breakdown field of the metric table (api/run/Metrics.hpp).
void breakdown_amounts(Checker& c, const std::string& at, const TimeBreakdown& b)
{
  for (const auto& m : metric_table())
    if (m.breakdown != nullptr)
      c.amount(at + m.name, b.*m.breakdown);
}

/// The whole-run value of one field is the fraction-weighted sum of the phases' (Simulation.cpp's `avg`).
void weighted(Checker& c, const SimulationReport& r, double total_fraction, const std::string& name, double whole,
              const std::function<double(const PhaseResult&)>& field)
{
  double sum = 0;
  for (const auto& p : r.phases)
    sum += p.fraction / total_fraction * field(p);
  c.equal(name, whole, sum, "the fraction-weighted phase value");
}
} // namespace

std::string check_report(const SimulationReport& r)
{
  Checker c;
  // --- every number
  c.amount("step_time_s", r.step_time_s, /*positive=*/true);
  c.amount("samples_per_s", r.samples_per_s, /*positive=*/true);
  c.amount("tflops_per_gpu", r.tflops_per_gpu);
  breakdown_amounts(c, "breakdown.", r.breakdown);
  c.amount("breakdown.straggler_wait_s", r.straggler_wait_s);
  c.amount("bytes_per_gpu.inter_node", r.bytes_per_gpu.inter_node);
  c.amount("bytes_per_gpu.intra_node", r.bytes_per_gpu.intra_node);
  const auto& m = r.memory;
  c.amount("memory_gb_per_gpu", r.memory_gb_per_gpu);
  if (m.fit.capacity_gb)
    c.amount("memory.capacity_gb", *m.fit.capacity_gb, /*positive=*/true);
  c.amount("memory.headroom_gb", m.fit.headroom_gb);
  for (const auto& [name, v] : {std::pair{"gb_without_recomputation", m.fit.gb_without_recomputation},
                                {"gb_with_recomputation", m.fit.gb_with_recomputation},
                                {"weights", m.weights_gb},
                                {"gradients", m.gradients_gb},
                                {"optimizer_states", m.optimizer_states_gb},
                                {"compression_buffers", m.compression_buffers_gb},
                                {"optimizer_step_temporaries", m.optimizer_step_temporaries_gb},
                                {"activations", m.activations_gb},
                                {"activations_recomputed", m.activations_recomputed_gb}})
    c.amount(std::string("memory.") + name, v);
  for (std::size_t i = 0; i < r.phases.size(); ++i) {
    const auto& p        = r.phases[i];
    const std::string at = fmt::format("phases/{}.", i);
    c.amount(at + "fraction", p.fraction, /*positive=*/true);
    if (p.fraction > 1)
      c.fail(fmt::format("{}fraction {} is above 1", at, p.fraction));
    c.amount(at + "step_time_s", p.step_time_s, /*positive=*/true);
    c.amount(at + "samples_per_s", p.samples_per_s, /*positive=*/true);
    breakdown_amounts(c, at + "breakdown.", p.breakdown);
    c.amount(at + "pipeline_forward_comm_ms", p.pipeline_forward_comm_ms);
    c.amount(at + "pipeline_backward_comm_ms", p.pipeline_backward_comm_ms);
    c.amount(at + "bytes_per_gpu.inter_node", p.bytes_per_gpu.inter_node);
    c.amount(at + "bytes_per_gpu.intra_node", p.bytes_per_gpu.intra_node);
  }
  const auto& k = r.config;
  c.amount("config.inter_node_gbps", k.inter_node_gbps);
  c.amount("config.forward_ms_per_micro_batch", k.forward_ms_per_micro_batch);
  c.amount("config.backward_ms_per_micro_batch", k.backward_ms_per_micro_batch);
  for (const auto& [key, v] : k.params)
    if (!std::isfinite(v))
      c.fail(fmt::format("config.params.{} is not a finite number", key));
  if (k.stragglers) {
    c.amount("config.stragglers.compute_factor", k.stragglers->compute_factor, /*positive=*/true);
    c.amount("config.stragglers.kernel_factor", k.stragglers->kernel_factor, /*positive=*/true);
    c.amount("config.stragglers.cv", k.stragglers->cv);
  }
  c.amount("sim.wall_s", r.wall_s);
  if (r.ranks_idle_s)
    for (std::size_t i = 0; i < r.ranks_idle_s->size(); ++i)
      c.amount(fmt::format("ranks_idle_s/{}", i), (*r.ranks_idle_s)[i]);
  if (r.links)
    for (std::size_t i = 0; i < r.links->size(); ++i) {
      c.amount(fmt::format("links/{}.bytes", i), (*r.links)[i].bytes);
      c.amount(fmt::format("links/{}.utilisation", i), (*r.links)[i].utilisation);
    }
  if (!c.ok())
    return c.problem();

  // --- the run's shape
  if (k.gpus < 1 || k.dp < 1 || k.tp < 1 || k.pp < 1 || k.micro_batch < 1 || k.grad_accumulation < 1 ||
      k.global_batch < 1)
    return fmt::format("config: gpus {}, dp {}, tp {}, pp {}, micro_batch {}, grad_accumulation {} and global_batch "
                       "{} must all be at least 1",
                       k.gpus, k.dp, k.tp, k.pp, k.micro_batch, k.grad_accumulation, k.global_batch);
  if (k.cp < 1)
    return fmt::format("config.cp {} must be at least 1", k.cp);
  if (k.cp > 1 && static_cast<long long>(k.dp) * k.tp * k.cp * k.pp != k.gpus)
    return fmt::format("config.gpus {} is not dp x tp x cp x pp = {} x {} x {} x {}", k.gpus, k.dp, k.tp, k.cp, k.pp);
  if (k.cp == 1 && static_cast<long long>(k.dp) * k.tp * k.pp != k.gpus)
    return fmt::format("config.gpus {} is not dp x tp x pp = {} x {} x {}", k.gpus, k.dp, k.tp, k.pp);
  if (static_cast<double>(k.global_batch) !=
      static_cast<double>(k.dp) * static_cast<double>(k.micro_batch) * k.grad_accumulation)
    return fmt::format("config.global_batch {} is not dp x micro_batch x grad_accumulation = {} x {} x {}",
                       k.global_batch, k.dp, k.micro_batch, k.grad_accumulation);

  // --- the phases and the whole-run averages built from them
  if (r.phases.empty())
    return "phases: none (every run has at least one)";
  double total = 0;
  for (const auto& p : r.phases)
    total += p.fraction;
  if (!same(total, 1))
    return fmt::format("phases: the fractions sum to {}, not 1", total);
  const double batch = static_cast<double>(k.global_batch);
  for (std::size_t i = 0; i < r.phases.size(); ++i)
    c.equal(fmt::format("phases/{}.samples_per_s", i), r.phases[i].samples_per_s, batch / r.phases[i].step_time_s,
            "global_batch / step_time_s");
  weighted(c, r, total, "step_time_s", r.step_time_s, [](const PhaseResult& p) { return p.step_time_s; });
  c.equal("samples_per_s", r.samples_per_s, batch / r.step_time_s, "global_batch / step_time_s");
  for (const auto& m : metric_table())
    if (m.breakdown != nullptr)
      weighted(c, r, total, std::string("breakdown.") + m.name, r.breakdown.*m.breakdown,
               [&](const PhaseResult& p) { return p.breakdown.*m.breakdown; });
  weighted(c, r, total, "bytes_per_gpu.inter_node", r.bytes_per_gpu.inter_node,
           [](const PhaseResult& p) { return p.bytes_per_gpu.inter_node; });
  weighted(c, r, total, "bytes_per_gpu.intra_node", r.bytes_per_gpu.intra_node,
           [](const PhaseResult& p) { return p.bytes_per_gpu.intra_node; });

  // --- memory: the peak is the states plus the larger of activations and the step's temporaries
  const double states = m.weights_gb + m.gradients_gb + m.optimizer_states_gb + m.compression_buffers_gb;
  c.equal("memory.gb_without_recomputation", m.fit.gb_without_recomputation,
          states + std::max(m.activations_gb, m.optimizer_step_temporaries_gb),
          "states + max(activations, optimizer_step_temporaries)");
  c.equal("memory.gb_with_recomputation", m.fit.gb_with_recomputation,
          states + std::max(m.activations_recomputed_gb, m.optimizer_step_temporaries_gb),
          "states + max(activations_recomputed, optimizer_step_temporaries)");
  c.equal("memory_gb_per_gpu", r.memory_gb_per_gpu,
          m.activation_recomputation ? m.fit.gb_with_recomputation : m.fit.gb_without_recomputation,
          "the memory of the run's recomputation choice");
  return c.problem();
}

} // namespace ccsim::api
