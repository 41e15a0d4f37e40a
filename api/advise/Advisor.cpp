// The advisor, step by step: the family and its candidates (api/advise/AdviseCandidates.hpp), their simulation
// (api/advise/AdviseSimulation.hpp), each algorithm's row with its evidence, and the ranking (api/advise/Ranking.hpp).
// See Advisor.hpp.
#include "api/advise/Advisor.hpp"

#include "api/advise/AdviseCandidates.hpp"
#include "api/advise/AdviseSimulation.hpp"
#include "api/advise/ConvergenceEvidence.hpp"
#include "api/advise/Ranking.hpp"
#include "api/process/RunControl.hpp"
#include "api/run/ResolvedRun.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace ccsim::api {

namespace {
/// Why no candidate of `algorithm` ran: the time limit came first, no split suits the model, or each one's problem.
std::string cannot_run_reason(const std::string& algorithm, const AdviseCandidates& c, const AdviseSimulation& sim,
                              const sim::Workload& work)
{
  const auto it          = sim.by_algorithm.find(algorithm);
  const auto why         = it != sim.by_algorithm.end() ? it->second.why_not : std::nullopt;
  const auto split_count = c.splits.count(algorithm) != 0 ? c.splits.at(algorithm) : 0;
  if (sim.partial)
    return why ? "none of its splits evaluated before the time limit runs; e.g. " + *why
               : "not evaluated before the time limit";
  if (c.search && split_count == 0)
    return fmt::format("no split of {} GPUs suits {} (tp within a node dividing the heads, whole layers per stage, the "
                       "batch divisible{})",
                       c.shape.gpus, work.name, c.filtered ? ", the --tp / --pp filters" : "");
  return c.search ? fmt::format("none of its {} splits runs; e.g. {}", split_count, why.value_or(""))
                  : why.value_or("");
}

/// The entry of an algorithm that cannot run; without search, when memory alone refused it, with what it needs and
/// what would make it fit.
CannotRun cannot_run(const std::string& algorithm, const AdviseCandidates& c, const AdviseSimulation& sim,
                     const sim::Workload& work, InputCache& cache)
{
  CannotRun out{algorithm, cannot_run_reason(algorithm, c, sim, work), std::nullopt, {}};
  if (c.search || sim.partial)
    return out;
  const auto candidate = std::find_if(c.list.begin(), c.list.end(),
                                      [&](const AdviseCandidate& k) { return k.algorithm == algorithm; });
  if (candidate == c.list.end())
    return out;
  out.memory = memory_shortfall(candidate->request, cache);
  if (out.memory) {
    out.reason    = describe(*out.memory);
    out.would_fit = memory_fixes(candidate->request, *out.memory, cache);
  }
  return out;
}
} // namespace

AdviseReport advise(const AdviseRequest& in)
{
  const auto work       = load_workload(in.workload);
  const auto evidence   = load_convergence_evidence(in.evidence_file);
  const auto candidates = advise_candidates(in, work);
  const auto sim        = simulate_candidates(in, candidates, work.name);

  AdviseReport report;
  report.counts        = sim.counts;
  report.partial       = sim.partial;
  report.seconds       = run_seconds();
  report.title         = fmt::format("{} on {} x {} GPUs{}", work.name, in.topology.name, candidates.shape.gpus,
                                     candidates.search ? ", each algorithm at its fastest split" : "");
  report.workload      = work.name;
  report.baseline      = candidates.baseline;
  report.epoch_samples = in.epoch_samples;
  report.evidence_file = in.evidence_file;
  report.search        = candidates.search;
  InputCache cache;
  double base_rate     = 0;
  if (const auto it = sim.by_algorithm.find(candidates.baseline); it != sim.by_algorithm.end() && it->second.best)
    base_rate = it->second.best->samples_per_s;
  for (const auto& name : candidates.algorithms) {
    const auto it = sim.by_algorithm.find(name);
    if (it == sim.by_algorithm.end() || !it->second.best) {
      report.cannot_run.push_back(cannot_run(name, candidates, sim, work, cache));
      continue;
    }
    RankedAlgorithm row = ranked_row(name, *it->second.best, base_rate, in.epoch_samples);
    if (candidates.search) {
      row.splits_tried    = candidates.splits.count(name) != 0 ? candidates.splits.at(name) : 0;
      row.splits_that_run = it->second.splits_that_run;
    }
    add_evidence(row, evidence, in.epoch_samples);
    report.ranking.push_back(row);
  }
  rank(report.ranking);
  return report;
}

} // namespace ccsim::api
