// MPI start-up and rank queries; see Mpi.hpp.
#include "api/experiment/Mpi.hpp"

#include <cstdlib>

#ifdef CCSIM_HAVE_MPI
#include <mpi.h>
#endif

namespace ccsim::api {

#ifdef CCSIM_HAVE_MPI
namespace {
bool g_mpi_initialised = false;

bool launched_by_mpirun()
{
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMI_SIZE") != nullptr;
}
} // namespace
#endif

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

std::vector<std::string> mpi_gather_at_rank0(const std::string& text)
{
#ifdef CCSIM_HAVE_MPI
  const int size = mpi_size();
  if (size > 1) {
    const int rank = mpi_rank();
    int length     = static_cast<int>(text.size());
    std::vector<int> lengths(static_cast<std::size_t>(size)), offsets(static_cast<std::size_t>(size));
    MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::string all;
    if (rank == 0) {
      int total = 0;
      for (int r = 0; r < size; ++r)
        offsets[r] = total, total += lengths[r];
      all.resize(static_cast<std::size_t>(total));
    }
    MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
    std::vector<std::string> parts;
    if (rank == 0)
      for (int r = 0; r < size; ++r)
        parts.push_back(all.substr(static_cast<std::size_t>(offsets[r]), static_cast<std::size_t>(lengths[r])));
    return parts;
  }
#endif
  return {text};
}

} // namespace ccsim::api
