#pragma once
// An experiment's results as rows: each point's axes, label and metrics, its speedup over the baseline algorithm,
// its scaling efficiency, and its error against the paper's value; then results.json and results.csv made from them.

#include "api/experiment/Experiment.hpp"
#include "api/run/SimulationReport.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
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

/// Results of every point, in point order: the flat row written to results.json/csv.
/// Adds speedup and speedup_over (over each point's baseline algorithm at the same point), scaling_efficiency (vs the fewest GPUs of otherwise equal points),
/// and predicted / error_pct for each paper metric.
std::vector<nlohmann::json> assemble_rows(const Experiment& e, const std::vector<PointResult>& results);

/// Median of |error_pct| over every paper value of `rows` (NaN when there is none).
double median_abs_error(const std::vector<nlohmann::json>& rows);

/// results.json's document for `rows` (every point's, or the finished ones' of a stopped run).
/// `complete`: every point ran (failed ones included); `done`: the points that ran without error.
nlohmann::json results_document(const Experiment& e, const std::vector<nlohmann::json>& rows, bool complete,
                                std::size_t done);

/// results.csv: the axis columns, label, every known metric, speedup, scaling efficiency, paper / predicted / error
/// per paper metric, and the error of a failed point.
void write_results_csv(const std::filesystem::path& file, const std::vector<nlohmann::json>& rows);
/// The text of results.csv for `rows` (also what `ccsim experiment --format csv` prints).
std::string results_csv(const std::vector<nlohmann::json>& rows);

/// The axis columns present in `rows` in a stable order (the known ones first, then params.*, as CLI options name
/// them); the paper metrics of `rows` in order of appearance; and one value as a table or CSV cell.
std::vector<std::string> axis_columns(const std::vector<nlohmann::json>& rows);
std::vector<std::string> paper_metrics(const std::vector<nlohmann::json>& rows);
std::string cell(const nlohmann::json& value);

} // namespace ccsim::api
