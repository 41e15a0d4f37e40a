#pragma once
// Runs an experiment's points: each simulation in its own forked process, `jobs` at a time, with a progress line on
// stderr (cli/Progress.hpp) once the run passes 2 s. Under `mpirun -n K` the points are split across ranks
// (round-robin) and rank 0 receives every answer, so it writes exactly the rows a serial run writes.
// A signal or --time-limit (cli/RunControl.hpp) kills the running simulations and ends the run early; the points
// that finished before are kept.

#include "cli/Experiment.hpp"

#include <functional>
#include <nlohmann/json.hpp>
#include <vector>

namespace ccsim::cli {

struct RunnerOptions {
  int jobs = 1;
  bool progress = true;
  bool keep_going = false; // run every point even after one fails (else stop launching at the first failure)
  /// Results known already (--resume), by point index: a non-null entry is used as is and not run. Empty: none.
  std::vector<nlohmann::json> known;
  /// Called in the process that ran a point (each rank under mpirun) the moment it finished or failed.
  std::function<void(std::size_t index, const nlohmann::json& result)> on_finished;
};

struct RunOutcome {
  /// In point order. A point that failed holds {"error": one line, "error_kind": "input" (bad configuration) |
  /// "crash" (the simulation died)}; a point never run (after a failure without keep_going, or a stop) holds null.
  std::vector<nlohmann::json> results;
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

/// MPI: true when started under mpirun (and ccsim was built with MPI). Initialises MPI on first call.
bool mpi_active();
int mpi_rank();
int mpi_size();
void mpi_finish();

} // namespace ccsim::cli
