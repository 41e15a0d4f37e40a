// Reading and writing the prediction-errors file; see PredictionErrors.hpp.
#include "api/run/PredictionErrors.hpp"

#include "api/run/Metrics.hpp"
#include "io/JsonInput.hpp"

#include <array>
#include <filesystem>
#include <utility>
#include <mutex>

namespace ccsim::api {

namespace {
constexpr std::array<std::pair<Holdout, const char*>, 3> kHoldouts = {{
    {Holdout::IN_SAMPLE, "in_sample"},
    {Holdout::LEAVE_TABLE_OUT, "leave_table_out"},
    {Holdout::LEAVE_ROW_OUT, "leave_row_out"},
}};
} // namespace

std::string to_string(Holdout holdout)
{
  for (const auto& [h, name] : kHoldouts)
    if (h == holdout)
      return name;
  return "in_sample";
}

std::optional<Holdout> holdout_named(const std::string& text)
{
  for (const auto& [h, name] : kHoldouts)
    if (text == name)
      return h;
  return std::nullopt;
}

std::string default_prediction_errors_path()
{
  return (std::filesystem::path(io::data_dir()) / "experiments" / "calibration" / "prediction-errors.json").string();
}

PredictionErrors load_prediction_errors(const std::string& path)
{
  const auto doc = io::read_json_file(path);
  if (!doc.is_object())
    throw io::InputError(path, "", "must be a JSON object with \"rows\"");
  const io::JsonObject root(doc, path);
  root.allow_only({"rows"});
  PredictionErrors out;
  out.path = path;
  constexpr io::Range kErrorPct{-1e6, 1e6};
  for (const auto& r : root.objects("rows")) {
    r.allow_only({"topology", "workload", "algorithm", "gpus", "tp", "pp", "inter_node_gbps", "table", "label",
                  "metric", "error_pct", "kind"});
    ErrorRow row;
    row.regime.topology        = r.string("topology");
    row.regime.workload        = r.string("workload");
    row.regime.algorithm       = r.string("algorithm");
    row.regime.gpus            = static_cast<int>(r.integer_in("gpus", io::range::kGpus));
    row.regime.tp              = static_cast<int>(r.integer_in("tp", io::range::kParallelDegree));
    row.regime.pp              = static_cast<int>(r.integer_in("pp", io::range::kParallelDegree));
    row.regime.inter_node_gbps = r.number_in("inter_node_gbps", io::range::kLinkGbps);
    row.table                  = r.string("table");
    row.label                  = r.string_or("label", "");
    row.metric                 = r.string("metric");
    if (!metric_kind(row.metric))
      r.fail_at("metric", "unknown metric (a known metric or phase.<name>.<key>: api/run/Metrics.hpp)");
    row.error_pct              = r.number_in("error_pct", kErrorPct);
    row.kind = *holdout_named(r.choice("kind", {to_string(Holdout::LEAVE_ROW_OUT), to_string(Holdout::LEAVE_TABLE_OUT),
                                                to_string(Holdout::IN_SAMPLE)}));
    out.rows.push_back(std::move(row));
  }
  return out;
}

const PredictionErrors& default_prediction_errors()
{
  static std::once_flag once;
  static PredictionErrors errors;
  std::call_once(once, [] { errors = load_prediction_errors(default_prediction_errors_path()); });
  return errors;
}

nlohmann::json to_json(const PredictionErrors& errors)
{
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : errors.rows)
    rows.push_back({{"topology", r.regime.topology},
                    {"workload", r.regime.workload},
                    {"algorithm", r.regime.algorithm},
                    {"gpus", r.regime.gpus},
                    {"tp", r.regime.tp},
                    {"pp", r.regime.pp},
                    {"inter_node_gbps", r.regime.inter_node_gbps},
                    {"table", r.table},
                    {"label", r.label},
                    {"metric", r.metric},
                    {"error_pct", r.error_pct},
                    {"kind", to_string(r.kind)}});
  return {{"rows", rows}};
}

} // namespace ccsim::api
