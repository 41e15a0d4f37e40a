// MPI start-up and rank queries; see Mpi.hpp.
#include "api/experiment/Mpi.hpp"

#include <cstdlib>

#ifdef CCSIM_HAVE_MPI
#include <mpi.h>
#endif

namespace ccsim::api {

namespace {
bool g_mpi_initialised = false;

bool launched_by_mpirun()
{
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMI_SIZE") != nullptr;
}
} // namespace

bool mpi_active()
{
#ifdef CCSIM_HAVE_MPI
  if (!g_mpi_initialised && launched_by_mpirun()) {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SINGLE, &provided);
    g_mpi_initialised = true;
  }
  return g_mpi_initialised;
#else
  return false;
#endif
}

int mpi_rank()
{
#ifdef CCSIM_HAVE_MPI
  if (mpi_active()) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
  }
#endif
  return 0;
}

int mpi_size()
{
#ifdef CCSIM_HAVE_MPI
  if (mpi_active()) {
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return size;
  }
#endif
  return 1;
}

void mpi_finish()
{
#ifdef CCSIM_HAVE_MPI
  if (g_mpi_initialised) {
    MPI_Finalize();
    g_mpi_initialised = false;
  }
#endif
}

bool mpi_rank0_flag(bool value)
{
#ifdef CCSIM_HAVE_MPI
  if (mpi_size() > 1) {
    int v = value ? 1 : 0;
    MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return v != 0;
  }
#endif
  return value;
}

} // namespace ccsim::api
