#pragma once
// `ccsim calibrate --steps FILE`: fits chosen constants of a topology (JSON pointers: the sustained compute rate, the
// delivered NIC rate, ...) to step times (or any experiment metric) measured on the cluster, by log least squares
// over every row (api/calibration/Refit.hpp), and writes the topology with the fitted values and a note naming the rows.

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ccsim::api {

/// One measured value beside its predictions with the constants before and after the fit.
struct StepsRow {
  std::string label, metric;
  double measured = 0, predicted_before = 0, predicted_after = 0;
};

struct StepsCalibration {
  std::vector<std::string> constants;
  std::vector<double> before, after;
  std::vector<StepsRow> rows;
  double rms_log_error = 0; // over the rows, after the fit
};

/// Fits `constants` of the topology at `topo_path` to every measured value of `steps_file` (experiment format,
/// experiments/SCHEMA.md: each row's "paper" object holds what was measured; every row runs on this topology) and
/// writes the result to `out`. Bad input throws io::InputError naming the flag or file.
StepsCalibration calibrate_steps(const std::string& topo_path, const std::string& steps_file,
                                 const std::vector<std::string>& constants, int jobs, const std::string& out);

/// `calibrate --steps --format json`'s document: each constant before and after, the rms log error and every row
/// (label, metric, measured, predicted_before, predicted_after); `out` is the topology written.
nlohmann::json to_json(const StepsCalibration& fit, const std::string& out);

} // namespace ccsim::api
