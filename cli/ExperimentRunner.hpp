#pragma once
// Runs an experiment's points: each simulation in its own forked process, `jobs` at a time, with progress on
// stderr once the run takes more than a second. Under `mpirun -n K` the points are split across ranks
// (round-robin) and rank 0 receives every answer, so it writes exactly the rows a serial run writes.

#include "cli/Experiment.hpp"

#include <functional>
#include <nlohmann/json.hpp>
#include <vector>

namespace ccsim::cli {

struct RunnerOptions {
  int jobs = 1;
  bool progress = true;
  bool keep_going = false; // run every point even after one fails (else stop launching at the first failure)
};

/// Simulates every point; the result vector is in point order. A point that failed holds {"error": one line,
/// "error_kind": "input" (bad configuration) | "crash" (the simulation died)}; a point never run (after a failure
/// without keep_going) holds null.
std::vector<nlohmann::json> run_points(const Experiment& e, const RunnerOptions& options);

/// "point 3 of 35 (algorithm=adam, gpus=8)": how failure lines name a point.
std::string describe_point(const Experiment& e, std::size_t index);

/// MPI: true when started under mpirun (and ccsim was built with MPI). Initialises MPI on first call.
bool mpi_active();
int mpi_rank();
void mpi_finish();

} // namespace ccsim::cli
