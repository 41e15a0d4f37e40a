#pragma once
// The one serialisation of a SimulationReport: the `simulate --format json` document of docs/design/DESIGN.md. It is also what a
// simulation child sends through its pipe and what an experiment's results log keeps, so report_from_json is the one
// place a report is read back.

#include "api/run/Metrics.hpp"
#include "api/run/SimulationReport.hpp"

#include <nlohmann/json.hpp>

#include <map>

namespace ccsim::api {

nlohmann::json to_json(const SimulationReport& report);

/// Reads what to_json wrote. A document that is not one (a hand-edited log line) throws std::invalid_argument
/// naming the first missing or mistyped field.
SimulationReport report_from_json(const nlohmann::json& doc);

nlohmann::json to_json(const PhaseResult& phase);
/// Reads what to_json(PhaseResult) wrote (std::invalid_argument naming the field, as report_from_json).
PhaseResult phase_from_json(const nlohmann::json& doc);

/// Likely ranges by metric name: {"samples_per_s": {"low", "high", "why"}, ...}; without `why` (an experiment's rows)
/// low and high only. The reader refuses a name that is not a metric.
nlohmann::json to_json(const std::map<Metric, Interval>& intervals, bool why);
std::map<Metric, Interval> intervals_from_json(const nlohmann::json& doc, bool why);

} // namespace ccsim::api
