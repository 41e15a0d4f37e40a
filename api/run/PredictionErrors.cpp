// Reading and writing the prediction-errors file; see PredictionErrors.hpp.
#include "api/run/PredictionErrors.hpp"

#include "io/JsonInput.hpp"

#include <filesystem>
#include <mutex>

namespace ccsim::api {

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
    row.error_pct              = r.number_in("error_pct", kErrorPct);
    row.kind                   = r.choice("kind", {"leave_row_out", "leave_table_out", "in_sample"});
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
                    {"kind", r.kind}});
  return {{"rows", rows}};
}

} // namespace ccsim::api
