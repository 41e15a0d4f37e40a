#pragma once
// How far off ccsim has been where it can be checked: every calibration row's out-of-sample error, with the regime it
// was measured in (topology, workload, algorithm, split, GPUs, inter-node rate). `ccsim validate --errors-out FILE`
// writes it (experiments/calibration/prediction-errors.json is the presets' file); every simulation reads it to put an
// interval on its headline numbers (api/run/Intervals.hpp).

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ccsim::api {

/// The configuration a prediction was made for, as the interval rules compare them.
struct Regime {
  std::string topology, workload, algorithm;
  int gpus = 0, tp = 1, pp = 1;
  double inter_node_gbps = 0; // per node, Gbit/s, as simulated (after any --bandwidth-gbps)
};

struct ErrorRow {
  Regime regime;
  std::string table, label, metric;
  double error_pct = 0; // 100 (predicted - paper) / paper
  std::string kind;     // "leave_row_out", "leave_table_out" or "in_sample": how far out of sample it is
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
