// calibrate --steps; see CalibrateSteps.hpp.
#include "api/calibration/CalibrateSteps.hpp"

#include "api/calibration/CalibratedTopology.hpp"
#include "api/calibration/CalibrationFits.hpp"
#include "api/experiment/Experiment.hpp"
#include "api/calibration/Refit.hpp"
#include "sim/platform/Topology.hpp"
#include "io/JsonInput.hpp"

#include <fmt/format.h>

#include <cmath>

namespace ccsim::api {

StepsCalibration calibrate_steps(const std::string& topo_path, const std::string& steps_file,
                                 const std::vector<std::string>& constants, int jobs, const std::string& out)
{
  auto doc = io::read_json_file(topo_path);
  for (const auto& c : constants)
    if (const auto problem = constant_problem(doc, topo_path, c); !problem.empty())
      throw io::InputError("--fit", "", problem);
  (void)load_experiment(steps_file); // its own one-line errors first
  CalibrationFit fit;
  fit.topology    = topo_path;
  fit.constants   = constants;
  fit.tables      = {steps_file};
  fit.every_point = true;
  Refitter refit(fit, jobs);
  const auto& rows = refit.rows();
  if (rows.size() < constants.size())
    throw io::InputError(steps_file, "/rows",
                         fmt::format("{} measured values cannot fit {} constants: give at least one per constant",
                                     rows.size(), constants.size()));
  StepsCalibration result;
  result.constants = constants;
  result.before    = refit.preset_values();
  const auto before = refit.predict(result.before);
  result.after      = refit.fit(std::vector<bool>(rows.size(), true), result.before);
  const auto& after = refit.predict(result.after);
  double sum_sq = 0;
  std::string used;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!(after[i] > 0) || !std::isfinite(after[i]))
      throw io::InputError(steps_file, "", fmt::format("row '{}' cannot be simulated with the fitted constants",
                                                       io::printable(rows[i].label, 80)));
    sum_sq += std::pow(std::log(after[i] / rows[i].paper), 2);
    result.rows.push_back({rows[i].label, rows[i].metric, rows[i].paper, before[i], after[i]});
    used += fmt::format("{}{} {}", used.empty() ? "" : ", ", rows[i].label.empty() ? "(unlabelled)" : rows[i].label,
                        rows[i].metric);
  }
  result.rms_log_error = std::sqrt(sum_sq / static_cast<double>(rows.size()));

  std::string changed;
  for (std::size_t c = 0; c < constants.size(); ++c) {
    doc[nlohmann::json::json_pointer(constants[c])] = result.after[c];
    changed += fmt::format("{}{} {:.6g} -> {:.6g}", changed.empty() ? "" : "; ", constants[c], result.before[c],
                           result.after[c]);
  }
  doc["source_calibration_steps"] =
      fmt::format("ccsim calibrate --steps {}: {} fitted by least squares of log(predicted / measured) over {} values "
                  "({}); rms log error {:.3g}",
                  io::printable(steps_file, 200), changed, rows.size(), io::printable(used, 1500),
                  result.rms_log_error);
  write_calibrated_topology(doc, out);
  return result;
}

nlohmann::json to_json(const StepsCalibration& r, const std::string& out)
{
  nlohmann::json fitted = nlohmann::json::array();
  for (std::size_t c = 0; c < r.constants.size(); ++c)
    fitted.push_back({{"pointer", r.constants[c]}, {"before", r.before[c]}, {"after", r.after[c]}});
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& row : r.rows)
    rows.push_back({{"label", row.label},
                    {"metric", row.metric},
                    {"measured", row.measured},
                    {"predicted_before", row.predicted_before},
                    {"predicted_after", row.predicted_after}});
  return {{"topology", out}, {"constants", fitted}, {"rms_log_error", r.rms_log_error}, {"rows", rows}};
}

} // namespace ccsim::api
