// An experiment row <-> its JSON; see ExperimentRow.hpp. Keys are written in the order nlohmann::json keeps them
// (sorted), so the text depends only on the values.
#include "api/experiment/ExperimentRow.hpp"

#include "api/run/JsonFields.hpp"
#include "api/run/ReportJson.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace ccsim::api {

namespace {
using json = nlohmann::json;

// The result fields of a row besides the metric names; every other key is an axis.
const std::set<std::string> kResultKeys = {"label",   "error",     "memory_gb_per_gpu", "fits_memory",
                                           "intervals", "phases",  "paper",             "predicted",
                                           "error_pct", "speedup", "speedup_over",      "scaling_efficiency",
                                           "error_bound_pct"};

bool is_result_key(const std::string& key) { return kResultKeys.count(key) != 0 || metric_named(key).has_value(); }

void read_paper(const json& doc, ExperimentRow& row)
{
  const json& paper = doc["paper"];
  if (!paper.is_object())
    throw std::invalid_argument("/paper: not an object");
  const json& predicted = json_field(doc, "predicted", "/");
  const json& error     = json_field(doc, "error_pct", "/");
  const json* bounds = doc.contains("error_bound_pct") ? &doc["error_bound_pct"] : nullptr;
  for (const auto& [metric, _] : paper.items()) {
    row.paper.push_back({metric, json_number(paper, metric, "/paper/"), json_number(predicted, metric, "/predicted/"),
                         json_number(error, metric, "/error_pct/"), std::nullopt});
    if (bounds != nullptr && bounds->contains(metric))
      row.paper.back().bound_pct = json_number(*bounds, metric, "/error_bound_pct/");
  }
}
} // namespace

const PaperValue* ExperimentRow::paper_value(const std::string& metric) const
{
  const auto it = std::find_if(paper.begin(), paper.end(), [&](const PaperValue& p) { return p.metric == metric; });
  return it == paper.end() ? nullptr : &*it;
}

json to_json(const ExperimentRow& r)
{
  json row = r.axes.is_object() ? r.axes : json::object();
  if (!r.label.empty())
    row["label"] = r.label;
  if (r.error) {
    row["error"] = *r.error;
    return row;
  }
  for (const auto& m : metric_table())
    row[m.name] = r.metric(m.metric);
  row["memory_gb_per_gpu"] = r.memory_gb_per_gpu;
  row["fits_memory"]       = to_string(r.fits_memory);
  row["intervals"]         = to_json(r.intervals, /*why=*/false);
  row["phases"]            = json::array();
  for (const auto& p : r.phases)
    row["phases"].push_back(to_json(p));
  if (!r.paper.empty()) {
    for (const char* group : {"paper", "predicted", "error_pct"})
      row[group] = json::object();
    for (const auto& p : r.paper) {
      row["paper"][p.metric]     = p.paper;
      row["predicted"][p.metric] = p.predicted;
      row["error_pct"][p.metric] = p.error_pct;
      if (p.bound_pct)
        row["error_bound_pct"][p.metric] = *p.bound_pct;
    }
  }
  if (r.speedup) {
    row["speedup"]      = r.speedup->value;
    row["speedup_over"] = r.speedup->over;
  }
  if (r.scaling_efficiency)
    row["scaling_efficiency"] = *r.scaling_efficiency;
  return row;
}

json to_json(const std::vector<ExperimentRow>& rows)
{
  json out = json::array();
  for (const auto& r : rows)
    out.push_back(to_json(r));
  return out;
}

ExperimentRow experiment_row_from_json(const json& doc)
{
  if (!doc.is_object())
    throw std::invalid_argument("/: not an object");
  ExperimentRow row;
  row.axes = json::object();
  for (const auto& [key, value] : doc.items())
    if (!is_result_key(key))
      row.axes[key] = value;
  if (doc.contains("label"))
    row.label = json_text(doc, "label", "/");
  if (doc.contains("error")) {
    row.error = json_text(doc, "error", "/");
    return row;
  }
  for (const auto& m : metric_table())
    row.metrics[static_cast<std::size_t>(m.metric)] = json_number(doc, m.name, "/");
  row.memory_gb_per_gpu = json_number(doc, "memory_gb_per_gpu", "/");
  const auto verdict    = memory_verdict_named(json_text(doc, "fits_memory", "/"));
  if (!verdict)
    throw std::invalid_argument("/fits_memory: not a memory verdict");
  row.fits_memory = *verdict;
  row.intervals   = intervals_from_json(json_field(doc, "intervals", "/"), /*why=*/false);
  const json& phases = json_field(doc, "phases", "/");
  if (!phases.is_array())
    throw std::invalid_argument("/phases: not an array");
  for (const auto& p : phases)
    row.phases.push_back(phase_from_json(p));
  if (doc.contains("paper"))
    read_paper(doc, row);
  if (doc.contains("speedup"))
    row.speedup = Speedup{json_number(doc, "speedup", "/"), json_text(doc, "speedup_over", "/")};
  if (doc.contains("scaling_efficiency"))
    row.scaling_efficiency = json_number(doc, "scaling_efficiency", "/");
  return row;
}

} // namespace ccsim::api
