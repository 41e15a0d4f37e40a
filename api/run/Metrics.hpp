#pragma once
// A report's metrics by name, as experiment files name them ("paper": {"samples_per_s": ...}) and as their results
// rows and CSV columns list them.

#include "api/run/SimulationReport.hpp"

#include <string>
#include <vector>

namespace ccsim::api {

/// The whole-run metrics every results row carries, in column order: samples_per_s, step_time_s, tflops_per_gpu,
/// the breakdown (compute_s ... allreduce_ms), inter_node_bytes, intra_node_bytes, straggler_wait_s.
const std::vector<std::string>& known_metrics();

/// A metric of `report`: a known metric, memory_gb_per_gpu, or "phase.<name>.<key>" for one phase, where key is
/// fraction, step_time_s, samples_per_s, a breakdown key (with pipeline_forward_comm_ms and
/// pipeline_backward_comm_ms), inter_node_bytes or intra_node_bytes. Throws std::out_of_range for any other name.
double metric_value(const SimulationReport& report, const std::string& metric);

} // namespace ccsim::api
