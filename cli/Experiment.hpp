#pragma once
// Experiment files (experiments/*.json, format in experiments/SCHEMA.md): a base configuration, explicit rows
// (e.g. a paper table with its measured values) and/or axes swept as a cartesian product, a baseline for
// speedups, and the figure to draw. Loading expands them into points.

#include "cli/Simulation.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace ccsim::cli {

struct ExperimentPoint {
  SimulateRequest request;
  nlohmann::json axes;   // the values that define this point, named as CLI options (algorithm, gpus, bandwidth_gbps, ...)
  nlohmann::json paper;  // metric -> the paper's measured value (may be empty)
  std::string label;     // the row's label, if any
};

struct Experiment {
  std::string name;
  std::string description;
  std::string source;
  std::string path;
  std::vector<ExperimentPoint> points;
  std::string baseline_algorithm; // speedup = samples/s over the same point with this algorithm ("" = none)
  nlohmann::json figure;          // {"kind": ..., "x": ..., "y": ..., "series": ...}
};

/// Reads, validates and expands an experiment file; errors are io::InputError "FILE: /json/path: problem".
Experiment load_experiment(const std::string& path);

/// A metric of a simulate document: "samples_per_s", "step_time_s", "tflops_per_gpu", a breakdown key
/// ("allreduce_ms"), "inter_node_bytes", or "phase.<name>.<key>" for one phase. Throws std::out_of_range.
double metric_value(const nlohmann::json& simulate_doc, const std::string& metric);

/// Metric names metric_value accepts (without phase paths), for validation messages.
const std::vector<std::string>& known_metrics();

/// Results of every point, in point order: the flat row written to results.json/csv.
/// Adds speedup (vs baseline_algorithm), scaling_efficiency (vs the fewest GPUs of otherwise equal points),
/// and predicted / error_pct for each paper metric.
std::vector<nlohmann::json> assemble_rows(const Experiment& e, const std::vector<nlohmann::json>& docs);

/// Median of |error_pct| over every paper value of `rows` (NaN when there is none).
double median_abs_error(const std::vector<nlohmann::json>& rows);

} // namespace ccsim::cli
