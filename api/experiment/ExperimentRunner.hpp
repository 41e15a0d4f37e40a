#pragma once
// Runs an experiment's points through the process pool (api/process/ProcessPool.hpp), `jobs` at a time. Under
// `mpirun -n K` the points are split across ranks (round-robin) and rank 0 receives every answer, so it writes exactly
// the rows a serial run writes. A signal or --time-limit (api/process/RunControl.hpp) kills the running simulations and
// ends the run early; the points that finished before are kept.

#include "api/experiment/Experiment.hpp"
#include "api/experiment/ExperimentRows.hpp"
#include "api/process/ProcessPool.hpp"

#include <functional>
#include <optional>
#include <vector>

namespace ccsim::api {

struct RunnerOptions {
  int jobs = 1;
  bool keep_going = false; // run every point even after one fails (else stop launching at the first failure)
  /// Results known already, by point index: a set entry is used as is and not run (a stored report under --resume,
  /// or the input error of a point that cannot run, found before the run). Empty: none.
  std::vector<std::optional<PointResult>> known;
  /// How far this rank is: `finished` counts its known points too, of `total` (its share); `resumed` of them were
  /// known before the run; `running` and `failed` as the pool says. Rank 0 only.
  std::function<void(std::size_t finished, std::size_t total, std::size_t resumed, std::size_t running,
                     std::size_t failed)>
      on_progress;
  /// Called in the process that ran a point (each rank under mpirun) the moment it finished or failed.
  std::function<void(std::size_t index, const PointResult& result)> on_finished;
};

struct RunOutcome {
  /// In point order. A point never run (after a failure without keep_going, or a stop) holds neither report nor error.
  std::vector<PointResult> results;
  /// A signal or the time limit ended the run early (stop_exception() says which).
  bool stopped = false;
  /// Under mpirun, rank 0 holds every rank's results (false after a signal: each rank stopped on its own, and the
  /// finished points are only in the rank logs).
  bool gathered = true;
};

/// Simulates every point (see RunOutcome).
RunOutcome run_points(const Experiment& e, const RunnerOptions& options);

/// "point 3 of 35 (algorithm=adam, gpus=8)": how failure lines name a point.
std::string describe_point(const Experiment& e, std::size_t index);

} // namespace ccsim::api
