#pragma once
// One row of an experiment's results, typed: the point's axes and label, and either why it did not run or what it
// gave: every metric of its report (api/run/Metrics.hpp), memory, likely ranges, phases, each paper value beside
// ccsim's prediction of it and the error, the speedup over its baseline and its scaling efficiency. to_json is its one
// serialisation (a row of results.json, of `experiment --format json` and of the Python package's rows);
// experiment_row_from_json reads it back. Tables, CSV and figures are made from these fields, never from the JSON.

#include "api/run/MemoryFit.hpp"
#include "api/run/Metrics.hpp"
#include "api/run/SimulationReport.hpp"

#include <nlohmann/json.hpp>

#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ccsim::api {

/// A paper's value of one metric beside ccsim's prediction of it.
struct PaperValue {
  std::string metric; // as the experiment file names it: a known metric or phase.<name>.<key>
  double paper     = 0;
  double predicted = std::nan(""); // NaN: the report has no such value (a phase it does not have)
  double error_pct = std::nan(""); // 100 (predicted - paper) / paper
  std::optional<double> bound_pct;  // the experiment file's bound on |error_pct| (ExperimentPoint::error_bound_pct)
};

/// samples/s over those of the same point run with its baseline algorithm.
struct Speedup {
  double value = 0;
  std::string over; // the baseline algorithm
};

/// How a point went: it ran; it ran although it does not fit the GPUs' memory (under --allow-oom); it did not run.
enum class RowStatus { RAN, RAN_OUT_OF_MEMORY, NOT_RUN };

struct ExperimentRow {
  nlohmann::json axes; // the point's configuration values, named as CLI options (ExperimentPoint::axes): an object
  std::string label;   // "" = none
  /// A point that did not run: why, in one line. The fields below are then empty.
  std::optional<std::string> error;

  std::array<double, kMetricCount> metrics{}; // the report's whole-run metrics, by Metric
  double memory_gb_per_gpu  = 0;
  MemoryVerdict fits_memory = MemoryVerdict::UNKNOWN;
  std::map<Metric, Interval> intervals; // low and high (the reasons stay in the report)
  std::vector<PhaseResult> phases;
  std::vector<PaperValue> paper; // in the order of their metric names
  std::optional<Speedup> speedup;
  std::optional<double> scaling_efficiency; // per-GPU throughput over that of the fewest-GPU comparable point

  bool ran() const { return !error.has_value(); }
  RowStatus status() const
  {
    return error ? RowStatus::NOT_RUN
                 : fits_memory == MemoryVerdict::DOES_NOT_FIT ? RowStatus::RAN_OUT_OF_MEMORY : RowStatus::RAN;
  }
  double metric(Metric m) const { return metrics[static_cast<std::size_t>(m)]; }
  /// The paper value of `metric`, if the row has one.
  const PaperValue* paper_value(const std::string& metric) const;
};

/// The row as results.json holds it: the axes' keys, then label, then error alone, or every metric by name,
/// memory_gb_per_gpu, fits_memory, intervals, phases, paper / predicted / error_pct (objects by metric),
/// speedup / speedup_over and scaling_efficiency where the row has them.
nlohmann::json to_json(const ExperimentRow& row);
nlohmann::json to_json(const std::vector<ExperimentRow>& rows);

/// Reads what to_json wrote; every key that is not a result field is an axis. A damaged row throws
/// std::invalid_argument naming the field.
ExperimentRow experiment_row_from_json(const nlohmann::json& doc);

} // namespace ccsim::api
