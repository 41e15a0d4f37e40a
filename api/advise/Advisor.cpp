// The advisor: candidates, simulations through the process pool, and the ranking; see Advisor.hpp.
#include "api/advise/Advisor.hpp"

#include "api/advise/AdviseFilters.hpp"
#include "api/advise/ConvergenceEvidence.hpp"
#include "api/advise/ShapeBound.hpp"
#include "api/advise/ShapeSearch.hpp"
#include "api/process/ProcessPool.hpp"
#include "api/run/ReportJson.hpp"
#include "api/process/RunControl.hpp"
#include "api/run/Simulation.hpp"
#include "algorithms/PlanAlgorithm.hpp"
#include "algorithms/Registry.hpp"
#include "sim/platform/Topology.hpp"
#include "sim/model/Workload.hpp"
#include "io/JsonInput.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>

namespace ccsim::api {

namespace {
/// What advise needs of a simulation, kept per algorithm at its best split.
bool recomputes(const SimulationReport& r) { return r.memory.activation_recomputation; }
} // namespace

AdviseReport advise(const AdviseRequest& in)
{
  const auto work     = load_workload(in.workload);
  const auto evidence = load_convergence_evidence(in.evidence_file);
  SimulateRequest shape = in.shape;

  // Which family fits: the pipeline algorithms (AQ-SGD's) serve workloads pipelined without tensor parallelism, as
  // in AQ-SGD's runs (gpt2-xl, deberta-v2-xxl); a Megatron model split tp x pp (gpt-13b: 4 x 2, SDP4Bit §5) is offered
  // the data-parallel and sharded families, which pipeline its stages themselves.
  const bool pipelined = work.pp > 1 && work.tp == 1;
  const auto names     = advised_algorithms(in.algorithms, pipelined, work.name);
  // The baseline: the reference algorithm of the layout such a workload trains with (its descriptor says so): a
  // pipeline's, a decoder-only (GPT) model's sharded data parallelism's, else plain data parallelism's.
  using algorithms::Parallelism;
  const auto layout = pipelined ? Parallelism::PIPELINE
                      : work.decoder_only() ? Parallelism::SHARDED_DATA_PARALLEL
                                            : Parallelism::DATA_PARALLEL;
  const std::string baseline = algorithms::reference_algorithm(layout).name;

  // Every (algorithm, split) to simulate: the given split, or with search every candidate of api/advise/ShapeSearch.
  const bool search = in.search;
  if (search && shape.micro_batch)
    throw io::InputError("--micro-batch", "", "--search chooses the micro-batch: give one or the other");
  const bool filtered = !in.tp.empty() || !in.pp.empty();
  const auto topo     = search || filtered ? load_topology(in.topology) : sim::Topology{};
  if (filtered)
    check_split_filters(in.tp, in.pp, topo, work, shape.gpus, in.topology.name);
  if (!search) { // one split: the filters give it
    if (in.tp.size() > 1 || in.pp.size() > 1)
      throw io::InputError(in.tp.size() > 1 ? "--tp" : "--pp", "", "several values need --search");
    if (!in.tp.empty())
      shape.tp = in.tp.front();
    if (!in.pp.empty())
      shape.pp = in.pp.front();
  }
  auto allowed = [](const std::vector<int>& only, int v) {
    return only.empty() || std::find(only.begin(), only.end(), v) != only.end();
  };
  std::vector<std::pair<std::string, SimulateRequest>> todo;
  std::map<std::string, std::size_t> candidates; // per algorithm
  // The search compares splits at one global batch: the flag's, the workload's, or what its run rule gives the
  // workload's default split (a batch that grows with dp would otherwise change with the split, and with it the
  // convergence the evidence measured).
  std::uint64_t search_batch = shape.global_batch.value_or(work.global_batch);
  if (search && search_batch == 0 && work.grad_accumulation > 0)
    search_batch = static_cast<std::uint64_t>(std::max(1, shape.gpus / std::max(1, work.tp * work.pp))) *
                   work.micro_batch * static_cast<std::uint64_t>(work.grad_accumulation);
  for (const auto& name : names) {
    SimulateRequest req = shape;
    if (search && search_batch > 0)
      req.global_batch = search_batch;
    req.topology  = in.topology;
    req.workload  = in.workload;
    req.algorithm = name;
    if (!search) {
      todo.emplace_back(name, req);
      continue;
    }
    const bool pipe = algorithms::find_plan_algorithm(name)->parallelism() == algorithms::Parallelism::PIPELINE;
    for (const auto& c : search_candidates(topo, work, shape.gpus, search_batch, pipe)) {
      if (!allowed(in.tp, c.tp) || !allowed(in.pp, c.pp))
        continue;
      req.tp = c.tp, req.pp = c.pp, req.micro_batch = c.micro_batch;
      todo.emplace_back(name, req);
      ++candidates[name];
    }
  }
  // Without search a bad configuration shows up on the baseline first, as the one-line error the user needs.
  if (!search)
    std::stable_partition(todo.begin(), todo.end(), [&](const auto& t) { return t.first == baseline; });

  AdviseReport report;
  SearchCounts& counts = report.counts;
  counts.candidates    = todo.size();
  std::map<std::string, SimulationReport> best; // algorithm -> its fastest simulation
  std::map<std::string, std::size_t> best_at;   // algorithm -> that simulation's index in todo
  std::map<std::string, std::string> why_not;   // algorithm -> why no split of it could run
  std::map<std::string, std::size_t> fit;       // algorithm -> splits that run (simulated or pruned by bound)
  const std::string unit = search ? "splits" : "algorithms";
  // The fastest split, preferring one that fits without activation recomputation: ccsim's compute times come from
  // the papers' runs (profiles, fitted FLOP/s) and do not price a recomputed forward pass, so a split that needs one
  // is chosen only when no split of the algorithm fits without it. Ties go to the earlier split of the candidates'
  // order, whatever order they were simulated in.
  auto keep = [&](const std::string& name, SimulationReport r, std::size_t index) {
    ++fit[name];
    const auto it = best.find(name);
    const bool better =
        it == best.end() || recomputes(r) < recomputes(it->second) ||
        (recomputes(r) == recomputes(it->second) &&
         (r.samples_per_s > it->second.samples_per_s ||
          (r.samples_per_s == it->second.samples_per_s && index < best_at[name])));
    if (better) {
      best[name]    = std::move(r);
      best_at[name] = index;
    }
  };
  auto progress = [&](std::size_t running_done) {
    if (in.on_progress)
      in.on_progress(work.name, running_done, todo.size(), unit);
  };
  std::size_t first = 0;
  if (!search && !todo.empty() && todo.front().first == baseline) {
    try {
      keep(baseline, run_simulation_isolated(todo.front().second), 0);
      ++counts.simulated;
      first = 1;
      progress(1);
    } catch (const RunStopped& e) {
      if (e.signal() != 0)
        throw;
    }
  }

  // With search, each candidate is resolved first (api/advise/ShapeBound.hpp): those that cannot run are set aside
  // with the reason, the others queued per algorithm by increasing lower bound.
  std::vector<ShapeTriage> triage(todo.size());
  std::map<std::string, std::vector<std::size_t>> queue; // algorithm -> its candidates to simulate, in order
  InputCache cache;
  for (std::size_t i = first; i < todo.size() && !stop_requested(); ++i) {
    if (search) {
      triage[i] = triage_shape(todo[i].second, cache);
      if (triage[i].kind != ShapeTriage::Kind::RUNS) {
        why_not[todo[i].first] = triage[i].why;
        ++(triage[i].kind == ShapeTriage::Kind::NO_MEMORY ? counts.pruned_by_memory : counts.invalid);
        continue;
      }
    }
    queue[todo[i].first].push_back(i);
  }
  if (search && in.prune)
    for (auto& [name, q] : queue)
      std::stable_sort(q.begin(), q.end(), [&](std::size_t a, std::size_t b) { return triage[a].bound_s < triage[b].bound_s; });
  // A candidate is pruned when even its bound is slower than its algorithm's best so far, and it could not win on
  // recomputation either (the best fits without it, or this one needs it too).
  auto prunable = [&](std::size_t i) {
    const auto it = best.find(todo[i].first);
    if (!search || !in.prune || it == best.end() || triage[i].bound_s <= 0)
      return false;
    if (triage[i].recompute < recomputes(it->second))
      return false;
    return triage[i].max_samples_per_s() < it->second.samples_per_s * (1 - 1e-9);
  };

  // Waves through the process pool: about `jobs` candidates, the next ones of each algorithm, so that each wave's
  // results tighten the pruning of the next. Without search, one wave of every algorithm.
  std::map<std::string, std::size_t> next; // algorithm -> its place in its queue
  const auto task = simulation_task([&](std::size_t i) -> const SimulateRequest& { return todo[i].second; });
  while (!stop_requested()) {
    std::size_t active = 0;
    for (const auto& [name, q] : queue)
      active += next[name] < q.size() ? 1 : 0;
    if (active == 0)
      break;
    const std::size_t per = search ? std::max<std::size_t>(1, (static_cast<std::size_t>(in.jobs) + active - 1) / active)
                                   : todo.size();
    std::vector<std::size_t> wave;
    for (const auto& name : names) {
      const auto q = queue.find(name);
      if (q == queue.end())
        continue;
      auto& at = next[name];
      for (std::size_t taken = 0; at < q->second.size() && taken < per; ++at) {
        const std::size_t i = q->second[at];
        if (prunable(i)) {
          ++counts.pruned_by_bound;
          ++fit[name]; // it would run: only slower than the best
          continue;
        }
        wave.push_back(i);
        ++taken;
      }
    }
    if (wave.empty())
      continue;
    std::sort(wave.begin(), wave.end()); // launch order: the candidates' order
    PoolOptions pool;
    pool.jobs              = in.jobs;
    const std::size_t done = first + counts.simulated + counts.pruned_by_bound + counts.pruned_by_memory + counts.invalid;
    pool.on_progress = [&](const PoolProgress& p) { progress(done + p.finished); };
    const auto outcome = run_pool(todo.size(), wave, task, pool);
    for (const auto i : wave) {
      const auto& result = outcome.results[i];
      if (result.status == TaskResult::Status::CRASH)
        throw std::runtime_error(result.error);
      if (result.status == TaskResult::Status::NOT_RUN)
        continue; // cut short by the time limit: counted as left below
      ++counts.simulated;
      if (result.ok())
        keep(todo[i].first, report_from_json(result.value), i);
      else // this algorithm cannot run this split (it does not fit the GPUs' memory, the batch does not divide): listed
           // last with the reason when no split of it can
        why_not[todo[i].first] = result.input_error->problem();
    }
    if (outcome.stopped)
      break;
  }
  if (stop_requested()) {
    if (stop_signal() != 0)
      check_stop("");
    report.partial = true; // the time limit: the best of what finished
  }
  counts.left = counts.candidates - std::min(counts.candidates, counts.simulated + counts.pruned_by_bound +
                                                                    counts.pruned_by_memory + counts.invalid);
  report.seconds = run_seconds();

  report.title         = fmt::format("{} on {} x {} GPUs{}", work.name, in.topology.name, shape.gpus,
                                     search ? ", each algorithm at its fastest split" : "");
  report.workload      = work.name;
  report.baseline      = baseline;
  report.epoch_samples = in.epoch_samples;
  report.evidence_file = in.evidence_file;
  report.search        = search;
  double base_rate     = 0;
  if (const auto it = best.find(baseline); it != best.end())
    base_rate = it->second.samples_per_s;
  const double epoch = in.epoch_samples;
  for (const auto& name : names) {
    const auto it = best.find(name);
    if (it == best.end()) {
      if (report.partial)
        report.cannot_run.push_back(
            {name, why_not.count(name) ? "none of its splits evaluated before the time limit runs; e.g. " + why_not[name]
                                       : "not evaluated before the time limit"});
      else if (search && candidates[name] == 0)
        report.cannot_run.push_back({name, fmt::format("no split of {} GPUs suits {} (tp within a node dividing the "
                                                       "heads, whole layers per stage, the batch divisible{})",
                                                       shape.gpus, work.name, filtered ? ", the --tp / --pp filters" : "")});
      else
        report.cannot_run.push_back(
            {name, search ? fmt::format("none of its {} splits runs; e.g. {}", candidates[name], why_not[name])
                          : why_not[name]});
      continue;
    }
    const SimulationReport& r = it->second;
    // Time-to-accuracy: the family's baseline reaches the target in one epoch of epoch_samples; an algorithm needs
    // steps_ratio times as many steps, each at its own simulated rate.
    RankedAlgorithm row;
    row.algorithm                = name;
    row.samples_per_s            = r.samples_per_s;
    if (const auto iv = r.intervals.find("samples_per_s"); iv != r.intervals.end())
      row.samples_per_s_range = iv->second;
    row.epoch_time_s             = epoch / r.samples_per_s;
    row.speedup                  = base_rate > 0 ? r.samples_per_s / base_rate : 0;
    row.inter_node_bytes_per_gpu = r.bytes_per_gpu.inter_node;
    row.intra_node_bytes_per_gpu = r.bytes_per_gpu.intra_node;
    row.phases                   = r.phases.size();
    row.memory_gb_per_gpu        = r.memory_gb_per_gpu;
    row.fits_memory              = r.memory.fits;
    row.dp = r.config.dp, row.tp = r.config.tp, row.pp = r.config.pp;
    row.micro_batch              = r.config.micro_batch;
    row.grad_accumulation        = r.config.grad_accumulation;
    row.activation_recomputation = r.memory.activation_recomputation;
    if (search) {
      row.splits_tried    = candidates[name];
      row.splits_that_run = fit[name];
    }
    if (const auto rows = find_evidence(evidence, name); !rows.empty()) {
      row.has_evidence = true;
      const bool all_yes = std::all_of(rows.begin(), rows.end(), [](const auto* e) { return e->converges == Converges::YES; });
      const bool all_no  = std::all_of(rows.begin(), rows.end(), [](const auto* e) { return e->converges == Converges::NO; });
      row.converges      = all_yes ? Converges::YES : all_no ? Converges::NO : Converges::UNCERTAIN;
      // The steps ratio of a transformer row (the proxy the papers' claims are tested on) before the mlp's.
      const EvidenceRow* source = nullptr;
      for (const auto* e : rows)
        if (e->steps_ratio && (source == nullptr || (source->proxy == "mlp" && e->proxy != "mlp")))
          source = e;
      for (const auto* e : rows) {
        row.evidence.push_back(e->summary());
        if (const auto brief = e->short_summary();
            std::find(row.evidence_short.begin(), row.evidence_short.end(), brief) == row.evidence_short.end())
          row.evidence_short.push_back(brief);
        if (e->converges != Converges::YES)
          row.reason += (row.reason.empty() ? "" : "; ") + e->proxy + " " + e->regime + ": " + e->reason;
      }
      const EvidenceRow& shown = source != nullptr ? *source : *rows.front();
      row.family   = shown.family;
      row.baseline = shown.baseline;
      row.command  = shown.command;
      if (source != nullptr && *row.converges != Converges::NO) {
        row.steps_ratio        = *source->steps_ratio;
        row.time_to_accuracy_h = *source->steps_ratio * epoch / r.samples_per_s / 3600;
      }
    }
    report.ranking.push_back(row);
  }
  // Converging algorithms by time-to-accuracy, then uncertain ones (seeds or proxies disagree) by time-to-accuracy,
  // then those without evidence, then those that do not converge (each of the last two groups by throughput).
  auto group = [](const RankedAlgorithm& r) {
    if (!r.converges)
      return 2;
    return *r.converges == Converges::YES ? 0 : *r.converges == Converges::UNCERTAIN ? 1 : 3;
  };
  auto& ranking = report.ranking;
  std::stable_sort(ranking.begin(), ranking.end(), [&](const RankedAlgorithm& a, const RankedAlgorithm& b) {
    if (group(a) != group(b))
      return group(a) < group(b);
    if (a.time_to_accuracy_h.has_value() != b.time_to_accuracy_h.has_value())
      return a.time_to_accuracy_h.has_value();
    if (a.time_to_accuracy_h)
      return *a.time_to_accuracy_h < *b.time_to_accuracy_h;
    return a.samples_per_s > b.samples_per_s;
  });
  // The ranking by throughput alone, beside it: what `advise` answered before convergence was weighed.
  std::vector<std::size_t> order(ranking.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return ranking[a].samples_per_s > ranking[b].samples_per_s; });
  for (std::size_t i = 0; i < order.size(); ++i)
    ranking[order[i]].throughput_rank = i + 1;
  return report;
}

} // namespace ccsim::api
