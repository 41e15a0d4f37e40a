// The advisor: candidates, simulations through the process pool, and the ranking; see Advisor.hpp.
#include "api/advise/Advisor.hpp"

#include "api/advise/ConvergenceEvidence.hpp"
#include "api/advise/ShapeSearch.hpp"
#include "api/process/ProcessPool.hpp"
#include "api/run/ReportJson.hpp"
#include "api/process/RunControl.hpp"
#include "api/run/Simulation.hpp"
#include "algorithms/PlanAlgorithm.hpp"
#include "sim/Topology.hpp"
#include "sim/Workload.hpp"
#include "sim/io/JsonInput.hpp"

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
  const auto& shape   = in.shape;

  // Which family fits: the pipeline algorithms (AQ-SGD's) serve workloads pipelined without tensor parallelism, as
  // in AQ-SGD's runs (gpt2-xl, deberta-v2-xxl); a Megatron model split tp x pp (gpt-13b: 4 x 2, SDP4Bit §5) is offered
  // the data-parallel and sharded families, which pipeline its stages themselves.
  const bool pipelined = work.pp > 1 && work.tp == 1;
  std::vector<std::string> names;
  for (const auto* a : algorithms::plan_algorithms()) {
    const bool pipe = a->parallelism() == algorithms::Parallelism::PIPELINE;
    if (pipe == pipelined)
      names.push_back(a->name());
  }
  const std::string baseline = pipelined ? "fp32-pipeline" : (work.decoder_only() ? "megatron-dp" : "adam");

  // Every (algorithm, split) to simulate: the given split, or with search every candidate of api/advise/ShapeSearch.
  const bool search = in.search;
  if (search && shape.micro_batch)
    throw io::InputError("--micro-batch", "", "--search chooses the micro-batch: give one or the other");
  std::vector<std::pair<std::string, SimulateRequest>> todo;
  std::map<std::string, std::size_t> candidates; // per algorithm
  const auto topo     = search ? load_topology(in.topology) : sim::Topology{};
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
      req.tp = c.tp, req.pp = c.pp, req.micro_batch = c.micro_batch;
      todo.emplace_back(name, req);
      ++candidates[name];
    }
  }
  // Without search a bad configuration shows up on the baseline first, as the one-line error the user needs.
  if (!search)
    std::stable_partition(todo.begin(), todo.end(), [&](const auto& t) { return t.first == baseline; });

  std::map<std::string, SimulationReport> best; // algorithm -> its fastest simulation
  std::map<std::string, std::string> why_not;   // algorithm -> why no split of it could run
  std::map<std::string, std::size_t> fit;       // algorithm -> splits that ran
  const std::string unit = search ? "splits" : "algorithms";
  // The fastest split, preferring one that fits without activation recomputation: ccsim's compute times come from
  // the papers' runs (profiles, fitted FLOP/s) and do not price a recomputed forward pass, so a split that needs one
  // is chosen only when no split of the algorithm fits without it.
  auto keep = [&](const std::string& name, SimulationReport r) {
    ++fit[name];
    const auto it = best.find(name);
    if (it == best.end() || recomputes(r) < recomputes(it->second) ||
        (recomputes(r) == recomputes(it->second) && r.samples_per_s > it->second.samples_per_s))
      best[name] = std::move(r);
  };
  std::size_t first = 0;
  if (!search && !todo.empty() && todo.front().first == baseline) {
    keep(baseline, run_simulation_isolated(todo.front().second));
    first = 1;
    if (in.on_progress)
      in.on_progress(work.name, 1, todo.size(), unit);
  }
  std::vector<std::size_t> which;
  for (std::size_t i = first; i < todo.size(); ++i)
    which.push_back(i);
  PoolOptions pool;
  pool.jobs = in.jobs;
  if (in.on_progress)
    pool.on_progress = [&](const PoolProgress& p) { in.on_progress(work.name, first + p.finished, todo.size(), unit); };
  const auto outcome = run_pool(todo.size(), which,
                                simulation_task([&](std::size_t i) -> const SimulateRequest& { return todo[i].second; }),
                                pool);
  check_stop("");
  // In launch order, so ties go to the earlier split whatever order the children finished in.
  for (const auto i : which) {
    const auto& task = outcome.results[i];
    if (task.status == TaskResult::Status::CRASH)
      throw std::runtime_error(task.error);
    if (task.ok())
      keep(todo[i].first, report_from_json(task.value));
    else // this algorithm cannot run this split (it does not fit the GPUs' memory, the batch does not divide): listed
         // last with the reason when no split of it can
      why_not[todo[i].first] = task.input_error->problem();
  }

  AdviseReport report;
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
      if (search && candidates[name] == 0)
        report.cannot_run.push_back({name, fmt::format("no split of {} GPUs suits {} (tp within a node dividing the "
                                                       "heads, whole layers per stage, the batch divisible)",
                                                       shape.gpus, work.name)});
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

nlohmann::json to_json(const AdviseReport& report)
{
  nlohmann::json ranking = nlohmann::json::array();
  for (const auto& r : report.ranking) {
    nlohmann::json row = {{"algorithm", r.algorithm},
                          {"epoch_time_s", r.epoch_time_s},
                          {"samples_per_s", r.samples_per_s},
                          {"samples_per_s_interval",
                           {{"low", r.samples_per_s_range.low},
                            {"high", r.samples_per_s_range.high},
                            {"why", r.samples_per_s_range.why}}},
                          {"speedup", r.speedup},
                          {"inter_node_bytes_per_gpu", r.inter_node_bytes_per_gpu},
                          {"intra_node_bytes_per_gpu", r.intra_node_bytes_per_gpu},
                          {"phases", r.phases},
                          {"memory_gb_per_gpu", r.memory_gb_per_gpu},
                          {"fits_memory", r.fits_memory},
                          {"split",
                           {{"dp", r.dp},
                            {"tp", r.tp},
                            {"pp", r.pp},
                            {"micro_batch", r.micro_batch},
                            {"grad_accumulation", r.grad_accumulation},
                            {"activation_recomputation", r.activation_recomputation}}},
                          {"converges", r.converges ? nlohmann::json(to_string(*r.converges)) : nlohmann::json(nullptr)},
                          {"time_to_accuracy_h",
                           r.time_to_accuracy_h ? nlohmann::json(*r.time_to_accuracy_h) : nlohmann::json(nullptr)},
                          {"throughput_rank", r.throughput_rank}};
    if (report.search)
      row["search"] = {{"splits_tried", r.splits_tried}, {"splits_that_run", r.splits_that_run}};
    if (r.has_evidence) {
      row["evidence"] = {{"family", r.family}, {"baseline", r.baseline}, {"command", r.command}, {"rows", r.evidence}};
      if (r.steps_ratio)
        row["steps_ratio"] = *r.steps_ratio;
      if (!r.reason.empty())
        row["evidence"]["reason"] = r.reason;
    }
    ranking.push_back(row);
  }
  nlohmann::json cannot_run = nlohmann::json::array();
  for (const auto& c : report.cannot_run)
    cannot_run.push_back({{"algorithm", c.algorithm}, {"reason", c.reason}});
  return {{"title", report.title},
          {"baseline", report.baseline},
          {"epoch_samples", report.epoch_samples},
          {"evidence_file", report.evidence_file},
          {"search", report.search},
          {"ranking", ranking},
          {"cannot_run", cannot_run}};
}

} // namespace ccsim::api
