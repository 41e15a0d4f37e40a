// The rows of an experiment's results: each point's metrics beside its axes, speedups, scaling efficiency and the
// error against the paper; and results.json's document made from them. See ExperimentRows.hpp.
#include "api/experiment/ExperimentRows.hpp"

#include "api/output/Statistics.hpp"
#include "api/output/Table.hpp"
#include "io/JsonInput.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

namespace ccsim::api {

namespace {
const std::vector<std::string> AXIS_ORDER = {"topology", "workload", "algorithm", "gpus", "global_batch", "micro_batch",
                                             "tp", "pp", "bandwidth_gbps", "latency_us", "network_model", "fidelity",
                                             "straggler_cv", "straggler_seed", "vpp", "recompute",
                                             "memory_headroom_gb", "zero", "tp_overlap", "cp", "framework",
                                             "pipeline_p2p"};

/// The row of one point: why it did not run, or its report's metrics and its paper values beside their predictions.
ExperimentRow row_of(const ExperimentPoint& pt, const PointResult& result)
{
  ExperimentRow row;
  row.axes  = pt.axes;
  row.label = pt.label;
  if (!result.report) {
    row.error = result.error;
    return row;
  }
  const SimulationReport& doc = *result.report;
  for (const auto& m : metric_table())
    row.metrics[static_cast<std::size_t>(m.metric)] = metric_value(doc, m.metric);
  row.memory_gb_per_gpu = doc.memory_gb_per_gpu;
  row.fits_memory       = doc.memory.fit.verdict;
  for (const auto& [metric, iv] : doc.intervals)
    row.intervals[metric] = {iv.low, iv.high, ""};
  row.phases = doc.phases;
  for (const auto& [metric, paper] : pt.paper) {
    PaperValue v;
    v.metric = metric;
    v.paper  = paper;
    try {
      v.predicted = metric_value(doc, metric);
    } catch (const std::out_of_range&) {
    }
    v.error_pct = 100.0 * (v.predicted - paper) / paper;
    if (const auto bound = pt.error_bound_pct.find(metric); bound != pt.error_bound_pct.end())
      v.bound_pct = bound->second;
    row.paper.push_back(v);
  }
  return row;
}

/// The row's axes without the keys `drop` says true of: rows equal in everything else are comparable along them.
template <class Drop>
std::string axes_key(const ExperimentRow& row, Drop drop)
{
  nlohmann::json axes = row.axes;
  for (auto it = axes.begin(); it != axes.end();)
    it = drop(it.key()) ? axes.erase(it) : std::next(it);
  return io::dump_json(axes);
}

/// An axis' text value ("" when the row has no such axis or it is not a string).
std::string axis_text(const ExperimentRow& row, const std::string& axis)
{
  const auto it = row.axes.find(axis);
  return it != row.axes.end() && it->is_string() ? it->get<std::string>() : "";
}

/// The speedup over the baseline algorithm at the same point; algorithm parameters (params.*) belong to the
/// algorithm, so they are not part of "the same point". Each point's own baseline (api/experiment/Experiment.hpp: the
/// row's, its algorithm's, or the experiment's).
void add_speedups(const Experiment& e, std::vector<ExperimentRow>& rows)
{
  auto cluster_key = [](const ExperimentRow& r) {
    return axes_key(r, [](const std::string& k) { return k == "algorithm" || k.rfind("params.", 0) == 0; });
  };
  std::map<std::string, double> by_cluster_and_algorithm;
  for (const auto& r : rows)
    if (r.ran())
      by_cluster_and_algorithm[cluster_key(r) + " " + axis_text(r, "algorithm")] = r.metric(Metric::SAMPLES_PER_S);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    auto& r              = rows[i];
    const auto& baseline = e.points[i].baseline;
    const auto it        = by_cluster_and_algorithm.find(cluster_key(r) + " " + baseline);
    if (!baseline.empty() && it != by_cluster_and_algorithm.end() && r.ran())
      r.speedup = Speedup{r.metric(Metric::SAMPLES_PER_S) / it->second, baseline};
  }
}

/// Scaling efficiency: per-GPU throughput relative to the fewest-GPU point that differs only in gpus (and in the
/// global batch, so weak scaling compares too).
void add_scaling_efficiency(std::vector<ExperimentRow>& rows)
{
  auto scaling_key = [](const ExperimentRow& r) {
    return axes_key(r, [](const std::string& k) { return k == "gpus" || k == "global_batch"; });
  };
  auto gpus_of = [](const ExperimentRow& r) -> std::optional<int> {
    const auto it = r.axes.find("gpus");
    if (!r.ran() || it == r.axes.end())
      return std::nullopt;
    return it->get<int>();
  };
  std::map<std::string, std::pair<int, double>> smallest; // key -> (GPUs, samples/s per GPU) of its fewest-GPU row
  for (const auto& r : rows) {
    const auto g = gpus_of(r);
    if (!g)
      continue;
    const auto key = scaling_key(r);
    auto it        = smallest.find(key);
    if (it == smallest.end() || *g < it->second.first)
      smallest[key] = {*g, r.metric(Metric::SAMPLES_PER_S) / *g};
  }
  for (auto& r : rows) {
    const auto g = gpus_of(r);
    if (!g)
      continue;
    const auto it = smallest.find(scaling_key(r));
    if (it != smallest.end() && it->second.first != *g)
      r.scaling_efficiency = r.metric(Metric::SAMPLES_PER_S) / *g / it->second.second;
    else if (it != smallest.end())
      r.scaling_efficiency = 1.0;
  }
}
} // namespace

std::vector<ExperimentRow> assemble_rows(const Experiment& e, const std::vector<PointResult>& results)
{
  std::vector<ExperimentRow> rows;
  for (std::size_t i = 0; i < e.points.size(); ++i)
    rows.push_back(row_of(e.points[i], results[i]));
  add_speedups(e, rows);
  add_scaling_efficiency(rows);
  return rows;
}

std::vector<std::string> axis_columns(const std::vector<ExperimentRow>& rows)
{
  std::set<std::string> present, params;
  for (const auto& r : rows)
    for (const auto& [k, _] : r.axes.items()) {
      if (std::find(AXIS_ORDER.begin(), AXIS_ORDER.end(), k) != AXIS_ORDER.end())
        present.insert(k);
      else if (k.rfind("params.", 0) == 0)
        params.insert(k);
    }
  std::vector<std::string> out;
  for (const auto& k : AXIS_ORDER)
    if (present.count(k) != 0)
      out.push_back(k);
  out.insert(out.end(), params.begin(), params.end());
  return out;
}

std::vector<std::string> paper_metrics(const std::vector<ExperimentRow>& rows)
{
  std::vector<std::string> out;
  for (const auto& r : rows)
    for (const auto& p : r.paper)
      if (std::find(out.begin(), out.end(), p.metric) == out.end())
        out.push_back(p.metric);
  return out;
}

std::string axis_cell(const ExperimentRow& row, const std::string& axis)
{
  const auto it = row.axes.find(axis);
  if (it == row.axes.end() || it->is_null())
    return "";
  if (it->is_number_integer())
    return std::to_string(it->get<long long>());
  if (it->is_number())
    return format_number(it->get<double>(), 6);
  if (it->is_string())
    return it->get<std::string>();
  return io::dump_json(*it);
}

double median_abs_error(const std::vector<ExperimentRow>& rows)
{
  std::vector<double> errors;
  for (const auto& r : rows)
    for (const auto& p : r.paper)
      errors.push_back(p.error_pct);
  return median_abs(errors);
}

std::size_t paper_value_count(const std::vector<ExperimentRow>& rows)
{
  std::size_t n = 0;
  for (const auto& r : rows)
    n += r.paper.size();
  return n;
}

nlohmann::json results_document(const Experiment& e, const std::vector<ExperimentRow>& rows, bool complete,
                                std::size_t done)
{
  nlohmann::json doc = {{"experiment", e.name}, {"description", e.description}, {"source", e.source}, {"file", e.path},
                        {"figure", e.figure},   {"complete", complete}, {"points_total", e.points.size()},
                        {"points_done", done},  {"rows", to_json(rows)}};
  if (!e.paper_points.is_null())
    doc["paper_points"] = e.paper_points;
  const double med = median_abs_error(rows);
  if (std::isfinite(med))
    doc["median_abs_error_pct"] = med;
  return doc;
}

} // namespace ccsim::api
