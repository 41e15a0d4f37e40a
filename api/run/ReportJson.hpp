#pragma once
// The one serialisation of a SimulationReport: the `simulate --format json` document of docs/design/DESIGN.md. It is also what a
// simulation child sends through its pipe and what an experiment's results log keeps, so report_from_json is the one
// place a report is read back.

#include "api/run/SimulationReport.hpp"

#include <nlohmann/json.hpp>

namespace ccsim::api {

nlohmann::json to_json(const SimulationReport& report);

/// Reads what to_json wrote. A document that is not one (a hand-edited log line) throws std::invalid_argument
/// naming the first missing or mistyped field.
SimulationReport report_from_json(const nlohmann::json& doc);

nlohmann::json to_json(const PhaseResult& phase);

} // namespace ccsim::api
