#pragma once
// `mpirun -n K ccsim experiment ...`: the points are split across ranks (round-robin) and rank 0 gathers every answer.
// Without MPI (not built with it, or not started by mpirun) there is one rank.

namespace ccsim::api {

/// True when started under mpirun (and ccsim was built with MPI). Initialises MPI on first call.
bool mpi_active();
int mpi_rank();
int mpi_size();
void mpi_finish();
/// Rank 0's `value`, on every rank (a broadcast; `value` itself without MPI). Every rank must call it.
bool mpi_rank0_flag(bool value);

} // namespace ccsim::api
