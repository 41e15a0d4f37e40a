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
};

/// Simulates every point; the result vector is in point order. A point with bad input throws io::InputError
/// naming the experiment file and the point.
std::vector<nlohmann::json> run_points(const Experiment& e, const RunnerOptions& options);

/// MPI: true when started under mpirun (and ccsim was built with MPI). Initialises MPI on first call.
bool mpi_active();
int mpi_rank();
void mpi_finish();

} // namespace ccsim::cli
