#pragma once
// results.csv: one line per experiment row (api/experiment/ExperimentRow.hpp), made from its typed fields. Columns:
// the axes, label, every metric of the table (api/run/Metrics.hpp), speedup, speedup_over, scaling_efficiency,
// memory_gb_per_gpu, fits_memory, <metric>_low and <metric>_high for each metric a simulation puts a likely range on,
// paper_ / predicted_ / error_pct_ per paper metric, and the error of a point that did not run.

#include "api/experiment/ExperimentRow.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace ccsim::api {

/// The text of results.csv for `rows` (also what `ccsim experiment --format csv` prints).
std::string results_csv(const std::vector<ExperimentRow>& rows);
void write_results_csv(const std::filesystem::path& file, const std::vector<ExperimentRow>& rows);

} // namespace ccsim::api
