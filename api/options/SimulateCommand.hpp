#pragma once
// `simulate`'s options: the table both front ends generate their arguments from, and the builder that reads what was
// given into a SimulateRequest plus the files the run is asked to write.

#include "api/options/OptionTable.hpp"
#include "api/run/SimulateRequest.hpp"
#include "api/run/SimulationReport.hpp"

#include <optional>
#include <string>

namespace ccsim::api {

/// One simulation as asked for: the request, and where its trace and link heat map go.
struct SimulateCommand : SimulateRequest {
  std::optional<std::string> trace_file; // --trace FILE.json (request.trace is set with it)
  std::optional<std::string> plot_dir;   // --plot DIR: the links x time heat map (needs --links)
  std::optional<std::string> fsdp;       // --fsdp full_shard|shard_grad_op|no_shard: --zero 3|2|0 by FSDP's names
};

const OptionTable<SimulateCommand>& simulate_options();

/// The given values read and checked: every range and choice, --trace's file (refused now if it is not a regular
/// file: before the simulation, not after minutes of it), --plot with --links.
SimulateCommand build_simulate(const GivenValues& given);

/// Writes what the command's options ask for beside the report: the trace to --trace's file (and drops it from the
/// report, as the file holds it), the heat map into --plot's folder.
void write_simulate_files(const SimulateCommand& command, SimulationReport& report);

} // namespace ccsim::api
