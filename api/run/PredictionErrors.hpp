#pragma once
// How far off ccsim has been where it can be checked: every calibration row's out-of-sample error, with the regime it
// was measured in (topology, workload, algorithm, split, GPUs, inter-node rate). `ccsim validate --errors-out FILE`
// writes it (experiments/calibration/prediction-errors.json is the presets' file); every simulation reads it to put an
// interval on its headline numbers (api/run/Intervals.hpp).

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace ccsim::api {

/// The configuration a prediction was made for, as the interval rules compare them.
struct Regime {
  std::string topology, workload, algorithm;
  int gpus = 0, tp = 1, pp = 1;
  double inter_node_gbps = 0; // per node, Gbit/s, as simulated (after any --bandwidth-gbps)
};

/// How far out of sample a prediction was made: fitted on every row, or refitted without the row's table, or without
/// the row itself (api/calibration/Validation.hpp).
enum class Holdout { IN_SAMPLE, LEAVE_TABLE_OUT, LEAVE_ROW_OUT };

/// "in_sample", "leave_table_out" or "leave_row_out", as files name them; holdout_named reads them back (empty for
/// any other text).
std::string to_string(Holdout holdout);
std::optional<Holdout> holdout_named(const std::string& text);

struct ErrorRow {
  Regime regime;
  std::string table, label;
  std::string metric;   // as the calibration table names it: a known metric or phase.<name>.<key> (api/run/Metrics.hpp)
  double error_pct = 0; // 100 (predicted - paper) / paper
  Holdout kind     = Holdout::IN_SAMPLE;
};

struct PredictionErrors {
  std::string path; // where it was read from ("" when made in memory)
  std::vector<ErrorRow> rows;
};

/// The presets' file: <data dir>/experiments/calibration/prediction-errors.json.
std::string default_prediction_errors_path();

/// Reads and checks a prediction-errors file (io::InputError "FILE: /json/path: problem" on anything wrong).
PredictionErrors load_prediction_errors(const std::string& path);
/// The presets' file, read once per process.
const PredictionErrors& default_prediction_errors();

nlohmann::json to_json(const PredictionErrors& errors);

} // namespace ccsim::api
