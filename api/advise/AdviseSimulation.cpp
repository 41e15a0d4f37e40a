// The simulation step of `advise`: triage, waves through the process pool, each algorithm's fastest; see
// AdviseSimulation.hpp.
#include "api/advise/AdviseSimulation.hpp"

#include "api/advise/MemoryFixes.hpp"
#include "api/advise/ShapeBound.hpp"
#include "api/process/ProcessPool.hpp"
#include "api/process/RunControl.hpp"
#include "api/run/ReportJson.hpp"
#include "api/run/Simulation.hpp"
#include "io/InputError.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace ccsim::api {

namespace {
bool recomputes(const SimulationReport& r) { return r.memory.activation_recomputation; }

class CandidateRunner {
public:
  CandidateRunner(const AdviseRequest& in, const AdviseCandidates& c, const std::string& workload)
      : in_(in), c_(c), workload_(workload), triage_(c.list.size())
  {
    out_.counts.candidates = c.list.size();
    requests_.reserve(c.list.size());
    for (const auto& candidate : c.list)
      requests_.push_back(candidate.request);
  }

  AdviseSimulation run()
  {
    const std::size_t first = run_baseline_alone();
    triage_candidates(first);
    const auto task = simulation_task([&](std::size_t i) -> const SimulateRequest& { return requests_[i]; },
                                      requests_.size());
    while (!stop_requested()) {
      const auto wave = next_wave();
      if (!wave)
        break;
      if (!wave->empty() && run_wave(*wave, first, task))
        break;
    }
    auto& counts = out_.counts;
    if (stop_requested()) {
      if (stop_signal() != 0)
        check_stop("");
      out_.partial = true; // the time limit: the best of what finished
    }
    counts.left = counts.candidates - std::min(counts.candidates, settled());
    return std::move(out_);
  }

private:
  const std::string& name(std::size_t i) const { return c_.list[i].algorithm; }
  std::size_t settled() const
  {
    const auto& n = out_.counts;
    return n.simulated + n.pruned_by_bound + n.pruned_by_memory + n.invalid;
  }
  void progress(std::size_t done) const
  {
    if (in_.on_progress)
      in_.on_progress(workload_, done, c_.list.size(), c_.search ? "splits" : "algorithms");
  }

  /// Keeps simulation `i` if it is its algorithm's best so far (AlgorithmOutcome::best says which is).
  void keep(std::size_t i, SimulationReport r)
  {
    auto& a = out_.by_algorithm[name(i)];
    ++a.splits_that_run;
    const bool better = !a.best || recomputes(r) < recomputes(*a.best) ||
                        (recomputes(r) == recomputes(*a.best) &&
                         (r.samples_per_s > a.best->samples_per_s ||
                          (r.samples_per_s == a.best->samples_per_s && i < a.best_at)));
    if (better) {
      a.best    = std::move(r);
      a.best_at = i;
    }
  }

  /// Without search the baseline runs first, alone: a bad configuration is its one-line error. A baseline that does
  /// not fit the GPUs' memory is not one: advise still answers, listing it with what would make it fit (issue 44;
  /// api/advise/MemoryFixes.hpp). The candidates that remain start after it.
  std::size_t run_baseline_alone()
  {
    if (c_.search || c_.list.empty() || name(0) != c_.baseline)
      return 0;
    try {
      keep(0, run_simulation_isolated(c_.list.front().request));
      ++out_.counts.simulated;
      progress(1);
      return 1;
    } catch (const RunStopped& e) {
      if (e.signal() != 0)
        throw;
    } catch (const io::InputError& e) {
      InputCache cache;
      if (!memory_shortfall(c_.list.front().request, cache))
        throw;
      out_.by_algorithm[name(0)].why_not = e.problem();
      ++out_.counts.simulated;
      progress(1);
      return 1;
    }
    return 0;
  }

  /// With search, each candidate is resolved first (api/advise/ShapeBound.hpp): those that cannot run are set aside
  /// with the reason, the others queued per algorithm by increasing lower bound.
  void triage_candidates(std::size_t first)
  {
    InputCache cache;
    for (std::size_t i = first; i < c_.list.size() && !stop_requested(); ++i) {
      if (c_.search) {
        // The search chooses the recomputation mode too, unless --recompute gave one (ShapeBound.hpp).
        triage_[i] = triage_shape(c_.list[i].request, cache, /*search_recompute=*/true);
        if (triage_[i].recompute_mode)
          requests_[i].recompute = triage_[i].recompute_mode;
        if (triage_[i].kind != ShapeTriage::Kind::RUNS) {
          out_.by_algorithm[name(i)].why_not = triage_[i].why;
          ++(triage_[i].kind == ShapeTriage::Kind::NO_MEMORY ? out_.counts.pruned_by_memory : out_.counts.invalid);
          continue;
        }
      }
      queue_[name(i)].push_back(i);
    }
    if (c_.search && in_.prune)
      for (auto& [_, q] : queue_)
        std::stable_sort(q.begin(), q.end(),
                         [&](std::size_t a, std::size_t b) { return triage_[a].bound_s < triage_[b].bound_s; });
  }

  /// A candidate is pruned when even its bound is slower than its algorithm's best so far, and it could not win on
  /// recomputation either (the best fits without it, or this one needs it too).
  bool prunable(std::size_t i) const
  {
    const auto it = out_.by_algorithm.find(name(i));
    if (!c_.search || !in_.prune || it == out_.by_algorithm.end() || !it->second.best || triage_[i].bound_s <= 0)
      return false;
    const SimulationReport& best = *it->second.best;
    if (triage_[i].recompute < recomputes(best))
      return false;
    return triage_[i].max_samples_per_s() < best.samples_per_s * (1 - 1e-9);
  }

  /// The next wave: about `jobs` candidates, the next ones of each algorithm not pruned (without search, every one);
  /// empty when none is left, and an empty wave when every one taken was pruned.
  std::optional<std::vector<std::size_t>> next_wave()
  {
    std::size_t active = 0;
    for (const auto& [algorithm, q] : queue_)
      active += next_[algorithm] < q.size() ? 1 : 0;
    if (active == 0)
      return std::nullopt;
    const auto jobs       = static_cast<std::size_t>(in_.jobs);
    const std::size_t per = c_.search ? std::max<std::size_t>(1, (jobs + active - 1) / active) : c_.list.size();
    std::vector<std::size_t> wave;
    for (const auto& algorithm : c_.algorithms) {
      const auto q = queue_.find(algorithm);
      if (q == queue_.end())
        continue;
      auto& at = next_[algorithm];
      for (std::size_t taken = 0; at < q->second.size() && taken < per; ++at) {
        const std::size_t i = q->second[at];
        if (prunable(i)) {
          ++out_.counts.pruned_by_bound;
          ++out_.by_algorithm[algorithm].splits_that_run; // it would run: only slower than the best
          continue;
        }
        wave.push_back(i);
        ++taken;
      }
    }
    std::sort(wave.begin(), wave.end()); // launch order: the candidates' order
    return wave;
  }

  /// Simulates `wave` through the pool; true when the time limit or a signal stopped it.
  bool run_wave(const std::vector<std::size_t>& wave, std::size_t first,
                const std::function<nlohmann::json(std::size_t)>& task)
  {
    PoolOptions pool;
    pool.jobs              = in_.jobs;
    const std::size_t done = first + settled();
    pool.on_progress       = [&](const PoolProgress& p) { progress(done + p.finished); };
    const auto outcome     = run_pool(c_.list.size(), wave, task, pool);
    for (const auto i : wave) {
      const auto& result = outcome.results[i];
      if (result.status == TaskResult::Status::CRASH)
        throw std::runtime_error(result.error);
      if (result.status == TaskResult::Status::NOT_RUN)
        continue; // cut short by the time limit: counted as left
      ++out_.counts.simulated;
      if (result.ok())
        keep(i, report_from_json(result.value));
      else // this algorithm cannot run this split (it does not fit the GPUs' memory, the batch does not divide): listed
           // last with the reason when no split of it can
        out_.by_algorithm[name(i)].why_not = result.input_error->problem();
    }
    return outcome.stopped;
  }

  const AdviseRequest& in_;
  const AdviseCandidates& c_;
  std::string workload_;
  AdviseSimulation out_;
  std::vector<ShapeTriage> triage_;
  std::vector<SimulateRequest> requests_; // the candidates' requests, with the recomputation mode the triage chose
  std::map<std::string, std::vector<std::size_t>> queue_; // algorithm -> its candidates to simulate, in order
  std::map<std::string, std::size_t> next_;               // algorithm -> its place in its queue
};
} // namespace

AdviseSimulation simulate_candidates(const AdviseRequest& request, const AdviseCandidates& candidates,
                                     const std::string& workload)
{
  return CandidateRunner(request, candidates, workload).run();
}

} // namespace ccsim::api
