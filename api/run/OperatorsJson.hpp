#pragma once
// The "operators" object of `simulate --format json` (OperatorsResult) and where it comes from: the per-operator
// model's account of one micro-batch (sim::ModelCompute) shaped as the report's type, its JSON, and the reader
// api/run/ReportJson.cpp calls for it.

#include "api/run/SimulationReport.hpp"

#include "sim/compute/CostModel.hpp"

#include <nlohmann/json.hpp>

namespace ccsim::api {

/// The report's view of the model the step was priced with.
OperatorsResult operators_result(const sim::ModelCompute& model, sim::Precision precision, sim::Recompute recompute);

nlohmann::json to_json(const OperatorsResult& o);
/// Reads what to_json wrote; a missing or mistyped field throws std::invalid_argument naming its path.
OperatorsResult operators_from_json(const nlohmann::json& doc);

} // namespace ccsim::api
