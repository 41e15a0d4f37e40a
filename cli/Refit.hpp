#pragma once
// Refitting a topology's calibrated constants on a chosen subset of its calibration rows, and predicting every row
// with the refitted values: the engine of `ccsim validate`. Each evaluation writes the topology with the trial
// constants to a temporary file and simulates the tables' points on that topology (forked, `jobs` at a time).

#include "cli/CalibrationFits.hpp"
#include "cli/Experiment.hpp"

#include <map>
#include <string>
#include <vector>

namespace ccsim::cli {

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

  const std::vector<FitRow>& rows() const { return rows_; }
  /// The constants as the preset file has them.
  const std::vector<double>& preset_values() const { return preset_; }
  /// The predicted value of every row with the constants set to `values` (memoised).
  const std::vector<double>& predict(const std::vector<double>& values);
  /// The constants minimising the sum over rows with use[i] of log(predicted / paper)^2: coordinate descent, each
  /// coordinate a golden-section search in log space within [start / 2, 2 x start], to 0.2 %, until a sweep moves
  /// no constant by more than that.
  std::vector<double> fit(const std::vector<bool>& use, std::vector<double> start);
  /// Simulations run so far (every evaluation of every point).
  std::size_t simulations() const { return simulations_; }

private:
  double loss(const std::vector<double>& values, const std::vector<bool>& use);

  CalibrationFit fit_;
  int jobs_;
  nlohmann::json topology_;        // the preset's JSON
  std::string temp_path_;          // where trial topologies are written
  std::vector<Experiment> tables_; // only the points on this topology
  std::vector<FitRow> rows_;
  std::vector<double> preset_;
  std::map<std::vector<double>, std::vector<double>> memo_;
  std::size_t simulations_ = 0;
};

/// 100 (predicted - paper) / paper.
inline double error_pct(double predicted, double paper) { return 100 * (predicted - paper) / paper; }

} // namespace ccsim::cli
