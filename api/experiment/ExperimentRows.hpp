#pragma once
// An experiment's results as rows (api/experiment/ExperimentRow.hpp): each point's axes, label and metrics, its
// speedup over the baseline algorithm, its scaling efficiency, and its error against the paper's value; and
// results.json's document made from them (results.csv: api/experiment/ResultsCsv.hpp).

#include "api/experiment/Experiment.hpp"
#include "api/experiment/ExperimentRow.hpp"
#include "api/run/SimulationReport.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace ccsim::api {

/// What one point gave: its report, or why it failed; neither when it did not run.
struct PointResult {
  std::optional<SimulationReport> report;
  std::string error;      // one line
  std::string error_kind; // "input" (a bad configuration) | "crash" (the simulation died)
  bool ran() const { return report.has_value() || !error.empty(); }
  bool failed() const { return !error.empty(); }
};

/// Results of every point, in point order. Adds the speedup over each point's baseline algorithm at the same point,
/// the scaling efficiency (vs the fewest GPUs of otherwise equal points), and the prediction and error of each paper
/// value.
std::vector<ExperimentRow> assemble_rows(const Experiment& e, const std::vector<PointResult>& results);

/// Median of |error_pct| over every paper value of `rows` (NaN when there is none), and how many paper values the rows
/// hold.
double median_abs_error(const std::vector<ExperimentRow>& rows);
std::size_t paper_value_count(const std::vector<ExperimentRow>& rows);

/// results.json's document for `rows` (every point's, or the finished ones' of a stopped run).
/// `complete`: every point ran (failed ones included); `done`: the points that ran without error.
nlohmann::json results_document(const Experiment& e, const std::vector<ExperimentRow>& rows, bool complete,
                                std::size_t done);

/// The axis columns present in `rows` in a stable order (the known ones first, then params.*, as CLI options name
/// them); the paper metrics of `rows` in order of appearance; and one axis value as a table or CSV cell.
std::vector<std::string> axis_columns(const std::vector<ExperimentRow>& rows);
std::vector<std::string> paper_metrics(const std::vector<ExperimentRow>& rows);
std::string axis_cell(const ExperimentRow& row, const std::string& axis);

} // namespace ccsim::api
