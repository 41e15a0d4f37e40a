#pragma once
// Is a simulation report one the simulator could have produced? One check for every report ccsim keeps: a fresh
// result (run_simulation checks its own answer before anyone sees it) and a stored one (experiment --resume re-runs a
// results line that fails it). The rules follow from how api/run/Simulation.cpp builds the report, so a report that
// breaks one was damaged or edited, or the simulator has a bug:
//   - every number finite and >= 0; the whole-run step time, throughput and every phase's step time > 0;
//   - at least one phase; each phase's fraction in (0, 1], the fractions summing to 1;
//   - the whole-run step time, breakdown and bytes per GPU are the fraction-weighted phase values;
//   - samples/s = global batch / step time, for the run and for each phase;
//   - the run's shape: gpus = dp x tp x pp, global batch = dp x micro-batch x accumulation.
// Equalities hold to 1e-9 relative (the report's own arithmetic rounds at 1e-16; JSON keeps 17 digits).

#include "api/run/SimulationReport.hpp"

#include <string>

namespace ccsim::api {

/// The first problem found ("samples_per_s -1 is not positive", "phases: the fractions sum to 0.7, not 1"), or ""
/// when the report is consistent.
std::string check_report(const SimulationReport& report);

} // namespace ccsim::api
