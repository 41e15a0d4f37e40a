#pragma once
// Refitting a topology's calibrated constants on a chosen subset of its calibration rows, and predicting every row
// with the refitted values: the model behind `ccsim validate` and `calibrate --steps`. Each prediction sets the trial
// constants in the topology's JSON held in memory and simulates the tables' points on it through the process pool,
// `jobs` at a time; the fitting is api/calibration/ConstantFit.hpp's.

#include "api/calibration/CalibrationFits.hpp"
#include "api/calibration/ConstantFit.hpp"
#include "api/experiment/Experiment.hpp"

#include <string>
#include <vector>

namespace ccsim::api {

/// One paper value the fit can use: a metric of one point of one table.
struct FitRow {
  std::size_t table = 0;  // index into CalibrationFit::tables
  std::size_t point = 0;  // index into that experiment's points
  std::string label;      // the row's label
  std::string metric;
  double paper = 0;
};

class Refitter {
public:
  Refitter(const CalibrationFit& fit, int jobs);
  Refitter(const Refitter&)            = delete; // its engine calls back into it
  Refitter& operator=(const Refitter&) = delete;

  const std::vector<FitRow>& rows() const { return rows_; }
  /// The constants as the preset file has them.
  const std::vector<double>& preset_values() const { return preset_; }
  /// The predicted value of every row with the constants set to `values` (memoised).
  const std::vector<double>& predict(const std::vector<double>& values) { return engine_.predict(values); }
  /// The constants minimising the log error over the rows with use[i] (ConstantFit::minimise_log_error).
  std::vector<double> fit(const std::vector<bool>& use, std::vector<double> start)
  {
    return engine_.minimise_log_error(use, std::move(start));
  }
  /// The configuration a row was measured in (with the preset's topology, by name).
  const SimulateRequest& request(const FitRow& row) const { return tables_[row.table].points[row.point].request; }
  /// Simulations run so far (every evaluation of every distinct point).
  std::size_t simulations() const { return engine_.evaluations() * distinct_.size(); }

private:
  std::vector<double> simulate_rows(const std::vector<double>& values) const;

  CalibrationFit fit_;
  int jobs_;
  std::string topology_path_;       // the preset's path: the trial documents are named after it
  nlohmann::json topology_;         // the preset's JSON
  std::vector<Experiment> tables_;  // only the points on this topology
  std::vector<FitRow> rows_;
  std::vector<double> preset_;
  // Points that ask for the same simulation (AQ-SGD's tables repeat rows: 47 points, 30 distinct) are simulated once
  // per evaluation: the first of each kind, by (table, point), and every point's index into that list.
  std::vector<std::pair<std::size_t, std::size_t>> distinct_;
  std::vector<std::vector<std::size_t>> distinct_of_; // [table][point]
  ConstantFit engine_;
};

/// 100 (predicted - paper) / paper.
inline double error_pct(double predicted, double paper) { return 100 * (predicted - paper) / paper; }

} // namespace ccsim::api
