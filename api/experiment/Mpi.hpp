#pragma once
// `mpirun -n K ccsim experiment ...`: the points are split across ranks (round-robin) and rank 0 gathers every answer.
// Without MPI (not built with it, or not started by mpirun) there is one rank. This file's Mpi.cpp is the one place
// that includes <mpi.h>: it is a library of its own (ccsim_mpi), so the rest of ccsim_api is compiled the same with or
// without Open MPI, and the Python module links it without (api/CMakeLists.txt).

#include <string>
#include <vector>

namespace ccsim::api {

/// True when started under mpirun (and ccsim was built with MPI). Initialises MPI on first call.
bool mpi_active();
int mpi_rank();
int mpi_size();
void mpi_finish();
/// Rank 0's `value`, on every rank (a broadcast; `value` itself without MPI). Every rank must call it.
bool mpi_rank0_flag(bool value);
/// Every rank's `text`, gathered at rank 0: there, one text per rank in rank order; on the other ranks, nothing. Every
/// rank must call it. Without MPI: `{text}`.
std::vector<std::string> mpi_gather_at_rank0(const std::string& text);

} // namespace ccsim::api
