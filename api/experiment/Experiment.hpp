#pragma once
// Experiment files (experiments/*.json, format in experiments/SCHEMA.md): a base configuration, explicit rows
// (e.g. a paper table with its measured values) and/or axes swept as a cartesian product, a baseline for
// speedups, and the figure to draw. Loading expands them into points.

#include "api/run/SimulateRequest.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ccsim::api {

struct ExperimentPoint {
  SimulateRequest request;
  nlohmann::json axes;   // the values that define this point, named as CLI options (algorithm, gpus, bandwidth_gbps, ...)
  std::map<std::string, double> paper; // metric (api/run/Metrics.hpp's name or phase.<name>.<key>) -> the paper's value
  std::string label;     // the row's label, if any
  std::string baseline;  // speedup = samples/s over the same point run with this algorithm ("" = none)
  /// metric -> the largest |error| in percent the row may have against its paper value (the file's error_bound: the
  /// table's default or the row's own, each with its reason); a calibration table records one for every paper value.
  std::map<std::string, double> error_bound_pct;
};

struct Experiment {
  std::string name;
  std::string description;
  std::string source;
  std::string path;
  std::vector<ExperimentPoint> points;
  std::string baseline_algorithm; // the default baseline ("" = none); each point's own is ExperimentPoint::baseline
  nlohmann::json figure;          // {"kind": ..., "x": ..., "y": ..., "series": ...}
  nlohmann::json paper_points;    // {"source": ..., "points": [{<figure x>: ..., <figure y>: ..., ...}]} or null
};

/// Reads, validates and expands an experiment file; errors are io::InputError "FILE: /json/path: problem". A topology
/// or workload given as a relative path resolves against the file's folder.
Experiment load_experiment(const std::string& path);
/// The same for a document held in memory (a Python dict); `path` is what errors call it and where the default name
/// comes from (its stem). Relative topology and workload paths resolve against `base_dir`, or without one against the
/// working directory.
Experiment experiment_from_json(const nlohmann::json& doc, const std::string& path,
                                const std::optional<std::filesystem::path>& base_dir = std::nullopt);

} // namespace ccsim::api
