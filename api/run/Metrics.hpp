#pragma once
// A report's metrics, declared once. Each whole-run metric is an enum value here and one row of the table in
// Metrics.cpp: its name (as experiment files, results rows and CSV columns name it), its label (a text table's
// header), its kind (which calibration rows bound its error), whether a simulation puts a likely range on it, and
// where the report keeps it (a breakdown field of the run and of every phase, or a function of the report).
// Everything above the report iterates the table: the report's JSON (the breakdown), its checks, experiment rows and
// results.csv, the metrics an experiment may compare with a paper, prediction intervals and their CSV columns. A new
// metric is one enum value and one row (and, when the simulator measures it rather than deriving it, the report's
// field it reads); docs/ARCHITECTURE.md shows one.

#include "api/run/SimulationReport.hpp"

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ccsim::api {

/// The whole-run metrics every results row carries, in column order (the table's order).
enum class Metric : unsigned char {
  SAMPLES_PER_S,
  STEP_TIME_S,
  TFLOPS_PER_GPU,
  COMPUTE_S,
  COMM_S,
  EXPOSED_COMM_S,
  COMPRESSION_S,
  OPTIMIZER_S,
  ALLREDUCE_MS,
  INTER_NODE_BYTES,
  INTRA_NODE_BYTES,
  STRAGGLER_WAIT_S,
  TOKENS_PER_S,
  TOKENS_PER_S_PER_GPU,
  DAYS_PER_TRILLION_TOKENS,
};
inline constexpr std::size_t kMetricCount = 15;

/// Which calibration rows bound a metric's error (api/run/Intervals.hpp): whole-step throughput and time, or the time
/// of communication alone (all-reduce, pipeline sends).
enum class MetricKind { THROUGHPUT, COMMUNICATION };

/// When a simulation puts a likely range on a metric (api/run/Intervals.hpp).
enum class IntervalRule {
  NONE,
  ALWAYS,
  WHEN_POSITIVE, // only a run that has the thing (a step with a gradient synchronisation has an allreduce_ms)
};

struct MetricInfo {
  Metric metric;
  const char* name;  // in JSON, CSV and experiment files
  const char* label; // a text table's column header
  MetricKind kind;
  IntervalRule interval;
  /// Where the report keeps it: a field of the breakdown (of the run and of each phase, serialised in their
  /// "breakdown" objects), or else `of_run` and, where a phase has it too, `of_phase`.
  double TimeBreakdown::*breakdown = nullptr;
  double (*of_run)(const SimulationReport&) = nullptr;
  double (*of_phase)(const PhaseResult&)    = nullptr;
};

/// Every metric, in enum (column) order.
const std::array<MetricInfo, kMetricCount>& metric_table();
const MetricInfo& metric_info(Metric metric);
const char* metric_name(Metric metric);
/// The metric of a name ("samples_per_s"); empty for any other.
std::optional<Metric> metric_named(std::string_view name);

/// The metric names in column order: samples_per_s, step_time_s, tflops_per_gpu, the breakdown (compute_s ...
/// allreduce_ms), inter_node_bytes, intra_node_bytes, straggler_wait_s, tokens_per_s, tokens_per_s_per_gpu,
/// days_per_1t_tokens.
const std::vector<std::string>& known_metrics();

/// A metric of the whole run.
double metric_value(const SimulationReport& report, Metric metric);
/// A metric of one phase; empty where phases do not have it (tflops_per_gpu, straggler_wait_s).
std::optional<double> phase_metric_value(const PhaseResult& phase, Metric metric);

/// A metric by the name an experiment file gives it: a known metric, memory_gb_per_gpu, or "phase.<name>.<key>" for
/// one phase, where key is fraction, pipeline_forward_comm_ms, pipeline_backward_comm_ms or a metric phases have.
/// Throws std::out_of_range for any other name (or a phase the report does not have).
double metric_value(const SimulationReport& report, const std::string& metric);

/// The kind of a metric name as experiments and validate name them (a known metric, memory_gb_per_gpu, or
/// phase.<name>.<key> with a key phases have); empty for any other name.
std::optional<MetricKind> metric_kind(const std::string& metric);

} // namespace ccsim::api
