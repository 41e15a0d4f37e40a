#pragma once
// One `ccsim simulate` run as a library call, shared by simulate, experiment, advise, calibrate, validate and train:
// a typed request in (api/run/SimulateRequest.hpp), a typed report out (api/run/SimulationReport.hpp).
// SimGrid's Engine is one per process: run_simulation_isolated() forks, simulates in the child and returns the
// child's report (or rethrows its io::InputError) in the parent; the process pool runs many (simulation_task).

#include "api/process/Isolation.hpp"
#include "api/run/ResolvedRun.hpp"
#include "api/run/SimulateRequest.hpp"
#include "api/run/SimulationReport.hpp"

#include <cstddef>
#include <functional>

namespace ccsim::api {

/// Simulates a resolved run in this process (which must not have created a SimGrid Engine yet).
SimulationReport simulate(const ResolvedRun& run);
/// resolve_run (through `cache` when given), then simulate, then check_report (api/run/ReportChecks.hpp; an
/// inconsistent report is a std::logic_error). Bad input throws io::InputError.
SimulationReport run_simulation(const SimulateRequest& request, InputCache* cache = nullptr);

/// The same in a forked child: safe to call many times from one process. Rethrows the child's InputError (same
/// one-line message) and turns a crashed child into std::runtime_error; relays progress as await_isolated does, and
/// throws RunStopped on a signal or past the time limit.
SimulationReport run_simulation_isolated(const SimulateRequest& request, const ProgressFn& on_progress = {});
/// Starts one in a forked child without waiting (finish with finish_isolated, then report_from_json).
IsolatedRun start_isolated(const SimulateRequest& request);

/// A process-pool task (api/process/ProcessPool.hpp) that simulates request(i), i < count, and answers with its report's
/// JSON. Made in the parent before the pool forks, it loads there what the children share (the topologies and
/// workloads the requests name by preset or path, and the presets' prediction errors), so that no child reads and
/// parses those files again; a file that fails to load is left for the child to report, as before.
std::function<nlohmann::json(std::size_t)> simulation_task(std::function<const SimulateRequest&(std::size_t)> request,
                                                          std::size_t count);

} // namespace ccsim::api
