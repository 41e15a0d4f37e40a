// The rows of an experiment's results: each point's metrics beside its axes, speedups, scaling efficiency and the
// error against the paper; and the results.json / results.csv files written from them. See ExperimentRows.hpp.
#include "api/experiment/ExperimentRows.hpp"

#include "api/output/OutputFile.hpp"
#include "api/output/Statistics.hpp"
#include "api/output/Table.hpp"
#include "api/run/Metrics.hpp"
#include "api/run/ReportJson.hpp"
#include "io/JsonInput.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace ccsim::api {

namespace {
const std::vector<std::string> AXIS_ORDER = {"topology", "workload", "algorithm", "gpus", "global_batch", "micro_batch",
                                             "tp", "pp", "bandwidth_gbps", "latency_us", "network_model", "fidelity",
                                             "straggler_cv", "straggler_seed"};
} // namespace

std::vector<std::string> axis_columns(const std::vector<nlohmann::json>& rows)
{
  std::set<std::string> present, params;
  for (const auto& r : rows)
    for (const auto& [k, _] : r.items()) {
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

std::vector<std::string> paper_metrics(const std::vector<nlohmann::json>& rows)
{
  std::vector<std::string> out;
  for (const auto& r : rows)
    if (r.contains("paper"))
      for (const auto& [m, _] : r["paper"].items())
        if (std::find(out.begin(), out.end(), m) == out.end())
          out.push_back(m);
  return out;
}

std::string cell(const nlohmann::json& v)
{
  if (v.is_null())
    return "";
  if (v.is_number_integer())
    return std::to_string(v.get<long long>());
  if (v.is_number())
    return format_number(v.get<double>(), 6);
  if (v.is_string())
    return v.get<std::string>();
  return io::dump_json(v);
}

std::string results_csv(const std::vector<nlohmann::json>& rows)
{
  std::vector<std::string> cols = axis_columns(rows);
  cols.push_back("label");
  for (const auto& m : known_metrics())
    cols.push_back(m);
  cols.insert(cols.end(), {"speedup", "speedup_over", "scaling_efficiency", "memory_gb_per_gpu", "fits_memory"});
  // Each headline metric's likely range (api/run/Intervals.hpp): <metric>_low and <metric>_high.
  for (const char* m : {"samples_per_s", "step_time_s", "tflops_per_gpu", "allreduce_ms"})
    cols.insert(cols.end(), {std::string(m) + "_low", std::string(m) + "_high"});
  for (const auto& m : paper_metrics(rows))
    cols.insert(cols.end(), {"paper_" + m, "predicted_" + m, "error_pct_" + m});
  cols.push_back("error");
  Table t(cols);
  for (const auto& r : rows) {
    std::vector<std::string> cells;
    for (const auto& c : cols) {
      const bool bound = c.size() > 4 && (c.ends_with("_low") || c.ends_with("_high"));
      if (bound) {
        const auto under = c.rfind('_');
        const std::string metric = c.substr(0, under), end = c.substr(under + 1);
        const bool has = r.contains("intervals") && r["intervals"].contains(metric);
        cells.push_back(has ? cell(r["intervals"][metric][end]) : "");
      } else if (c.rfind("paper_", 0) == 0 || c.rfind("predicted_", 0) == 0 || c.rfind("error_pct_", 0) == 0) {
        const auto under = c.find('_', c.rfind("error_pct_", 0) == 0 ? 6 : 0);
        const std::string group = c.substr(0, under), metric = c.substr(under + 1);
        cells.push_back(r.contains(group) && r[group].contains(metric) ? cell(r[group][metric]) : "");
      } else {
        cells.push_back(r.contains(c) ? cell(r[c]) : "");
      }
    }
    t.add_row(cells);
  }
  std::ostringstream text;
  t.print_csv(text);
  return text.str();
}

void write_results_csv(const std::filesystem::path& file, const std::vector<nlohmann::json>& rows)
{
  write_output_file(file, results_csv(rows), "--out");
}

namespace {
/// The point's axes without one key: points equal in everything else are comparable along that key.
std::string key_without(const nlohmann::json& axes, const std::string& drop)
{
  nlohmann::json copy = axes;
  copy.erase(drop);
  return io::dump_json(copy);
}
} // namespace

std::vector<nlohmann::json> assemble_rows(const Experiment& e, const std::vector<PointResult>& results)
{
  std::vector<nlohmann::json> rows;
  for (std::size_t i = 0; i < e.points.size(); ++i) {
    const auto& pt     = e.points[i];
    const auto& result = results[i];
    nlohmann::json row = pt.axes;
    if (!pt.label.empty())
      row["label"] = pt.label;
    if (!result.report) {
      row["error"] = result.error;
      rows.push_back(row);
      continue;
    }
    const SimulationReport& doc = *result.report;
    for (const auto& m : known_metrics())
      row[m] = metric_value(doc, m);
    row["memory_gb_per_gpu"] = doc.memory_gb_per_gpu;
    row["fits_memory"]       = doc.memory.fits;
    row["intervals"]         = nlohmann::json::object();
    for (const auto& [metric, iv] : doc.intervals)
      row["intervals"][metric] = {{"low", iv.low}, {"high", iv.high}};
    row["phases"] = nlohmann::json::array();
    for (const auto& p : doc.phases)
      row["phases"].push_back(to_json(p));
    if (!pt.paper.empty()) {
      row["paper"]     = pt.paper;
      row["predicted"] = nlohmann::json::object();
      row["error_pct"] = nlohmann::json::object();
      for (const auto& [metric, paper] : pt.paper.items()) {
        double predicted = std::nan("");
        try {
          predicted = metric_value(doc, metric);
        } catch (const std::out_of_range&) {
        }
        row["predicted"][metric] = predicted;
        row["error_pct"][metric] = 100.0 * (predicted - paper.get<double>()) / paper.get<double>();
      }
    }
    rows.push_back(row);
  }
  // A row's configuration alone (its axes), without results, for matching comparable rows.
  auto axes_of = [](const nlohmann::json& r) {
    nlohmann::json axes = r;
    for (const char* k : {"label", "error", "phases", "paper", "predicted", "error_pct", "speedup", "speedup_over",
                          "scaling_efficiency", "memory_gb_per_gpu", "fits_memory", "intervals"})
      axes.erase(k);
    for (const auto& m : known_metrics())
      axes.erase(m);
    return axes;
  };
  // speedup over the baseline algorithm at the same point; algorithm parameters (params.*) belong to the
  // algorithm, so they are not part of "the same point"
  auto cluster_key = [&](const nlohmann::json& r) {
    nlohmann::json axes = axes_of(r);
    for (auto it = axes.begin(); it != axes.end();)
      it = it.key().rfind("params.", 0) == 0 ? axes.erase(it) : std::next(it);
    return key_without(axes, "algorithm");
  };
  // Each point's own baseline (api/experiment/Experiment.hpp: the row's, its algorithm's, or the experiment's).
  std::map<std::string, double> by_cluster_and_algorithm;
  for (const auto& r : rows)
    if (r.contains("samples_per_s"))
      by_cluster_and_algorithm[cluster_key(r) + " " + r.value("algorithm", "")] = r["samples_per_s"].get<double>();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    auto& r                = rows[i];
    const auto& baseline   = e.points[i].baseline;
    const auto it          = by_cluster_and_algorithm.find(cluster_key(r) + " " + baseline);
    if (!baseline.empty() && it != by_cluster_and_algorithm.end() && r.contains("samples_per_s")) {
      r["speedup"]      = r["samples_per_s"].get<double>() / it->second;
      r["speedup_over"] = baseline;
    }
  }
  // scaling efficiency: per-GPU throughput relative to the fewest-GPU point that differs only in gpus (and in
  // the global batch, so weak scaling compares too)
  std::map<std::string, std::pair<int, double>> smallest;
  auto scaling_key = [&](const nlohmann::json& r) {
    auto axes = axes_of(r);
    axes.erase("global_batch");
    return key_without(axes, "gpus");
  };
  for (const auto& r : rows) {
    if (!r.contains("samples_per_s") || !r.contains("gpus"))
      continue;
    const auto key = scaling_key(r);
    const int g    = r["gpus"].get<int>();
    auto it        = smallest.find(key);
    if (it == smallest.end() || g < it->second.first)
      smallest[key] = {g, r["samples_per_s"].get<double>() / g};
  }
  for (auto& r : rows) {
    if (!r.contains("samples_per_s") || !r.contains("gpus"))
      continue;
    const auto it = smallest.find(scaling_key(r));
    if (it != smallest.end() && it->second.first != r["gpus"].get<int>())
      r["scaling_efficiency"] = r["samples_per_s"].get<double>() / r["gpus"].get<int>() / it->second.second;
    else if (it != smallest.end())
      r["scaling_efficiency"] = 1.0;
  }
  return rows;
}

double median_abs_error(const std::vector<nlohmann::json>& rows)
{
  std::vector<double> errors;
  for (const auto& r : rows)
    if (r.contains("error_pct"))
      for (const auto& [_, v] : r["error_pct"].items())
        if (v.is_number())
          errors.push_back(v.get<double>());
  return median_abs(errors);
}
/// results.json's document for `rows` (every point's, or the finished ones' of a stopped run).
/// `complete`: every point ran (failed ones included); `done`: the points that ran without error.
nlohmann::json results_document(const Experiment& e, const std::vector<nlohmann::json>& rows, bool complete,
                                std::size_t done)
{
  nlohmann::json doc = {{"experiment", e.name}, {"description", e.description}, {"source", e.source}, {"file", e.path},
                        {"figure", e.figure},   {"complete", complete}, {"points_total", e.points.size()},
                        {"points_done", done},  {"rows", rows}};
  if (!e.paper_points.is_null())
    doc["paper_points"] = e.paper_points;
  const double med = median_abs_error(rows);
  if (std::isfinite(med))
    doc["median_abs_error_pct"] = med;
  return doc;
}

} // namespace ccsim::api
