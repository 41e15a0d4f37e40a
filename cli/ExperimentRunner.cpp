// A small process pool over start_isolated/finish_isolated, plus the MPI split of points across ranks.
#include "cli/ExperimentRunner.hpp"

#include "sim/io/JsonInput.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <csignal>
#include <poll.h>
#include <unistd.h>

#ifdef CCSIM_HAVE_MPI
#include <mpi.h>
#endif

namespace ccsim::cli {

namespace {
bool g_mpi_initialised = false;

bool launched_by_mpirun()
{
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMI_SIZE") != nullptr;
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

/// Runs the points `mine` (indices) with a pool of `jobs` children; fills results[index].
void run_local(const Experiment& e, const std::vector<std::size_t>& mine, const RunnerOptions& opt,
               std::vector<nlohmann::json>& results)
{
  struct Running {
    std::size_t index;
    IsolatedRun run;
  };
  const auto start = std::chrono::steady_clock::now();
  std::vector<Running> running;
  std::size_t next = 0, done = 0;
  bool stop        = false;
  const bool tty   = isatty(STDERR_FILENO) != 0;
  auto report      = [&](std::size_t index) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!opt.progress || elapsed < 1.0)
      return;
    const auto& r = e.points[index].request;
    std::cerr << fmt::format("{}[{}/{}] {} {} GPUs {:.1f} s", tty ? "\r\033[K" : "", done, mine.size(), r.algorithm,
                             r.gpus, elapsed)
              << (tty ? "" : "\n") << std::flush;
  };
  while (done < mine.size() && !(stop && running.empty())) {
    while (!stop && running.size() < static_cast<std::size_t>(std::max(1, opt.jobs)) && next < mine.size()) {
      const std::size_t idx = mine[next++];
      running.push_back({idx, start_isolated(e.points[idx].request)});
    }
    std::vector<pollfd> fds;
    for (const auto& r : running)
      fds.push_back({r.run.fd, POLLIN | POLLHUP, 0});
    if (poll(fds.data(), fds.size(), -1) < 0)
      continue;
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].revents == 0)
        continue;
      // The child writes its whole answer then exits: finish_isolated reads to EOF (children are small and fast).
      const Running r = running[i];
      running.erase(running.begin() + static_cast<long>(i));
      bool failed = false;
      try {
        results[r.index] = finish_isolated(r.run);
      } catch (const io::InputError& err) {
        results[r.index] = {{"error", err.what()}, {"error_kind", "input"}};
        failed           = true;
      } catch (const std::exception& err) {
        results[r.index] = {{"error", err.what()}, {"error_kind", "crash"}};
        failed           = true;
      }
      if (failed && !opt.keep_going) {
        stop = true;
        for (auto& other : running) { // stopping: the simulations still running are not wanted
          kill(other.run.pid, SIGKILL);
          try {
            finish_isolated(other.run);
          } catch (const std::exception&) {
          }
        }
        running.clear();
      }
      ++done;
      report(r.index);
      break; // fds changed: poll again
    }
  }
  if (opt.progress && tty && std::chrono::steady_clock::now() - start > std::chrono::seconds(1))
    std::cerr << "\r\033[K" << std::flush;
}
} // namespace

std::string describe_point(const Experiment& e, std::size_t index)
{
  std::string axes;
  for (const auto& [k, v] : e.points[index].axes.items())
    axes += (axes.empty() ? "" : ", ") + k + "=" + (v.is_string() ? v.get<std::string>() : io::dump_json(v));
  const auto& label = e.points[index].label;
  return fmt::format("point {} of {} ({}{})", index + 1, e.points.size(), label.empty() ? "" : label + ": ",
                     io::printable(axes, 160));
}

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

void mpi_finish()
{
#ifdef CCSIM_HAVE_MPI
  if (g_mpi_initialised) {
    MPI_Finalize();
    g_mpi_initialised = false;
  }
#endif
}

std::vector<nlohmann::json> run_points(const Experiment& e, const RunnerOptions& opt)
{
  std::vector<nlohmann::json> results(e.points.size());
  const int size = mpi_size();
  const int rank = mpi_rank();
  std::vector<std::size_t> mine;
  for (std::size_t i = rank; i < e.points.size(); i += static_cast<std::size_t>(size))
    mine.push_back(i);
  RunnerOptions local = opt;
  local.progress      = opt.progress && rank == 0;
  run_local(e, mine, local, results);
#ifdef CCSIM_HAVE_MPI
  if (size > 1) {
    // Every rank sends its answers (JSON text) to rank 0, which puts them back in point order.
    nlohmann::json payload = nlohmann::json::array(); // [[index, answer], ...]
    for (auto i : mine)
      payload.push_back({i, results[i]});
    const std::string text = io::dump_json(payload);
    int length             = static_cast<int>(text.size());
    std::vector<int> lengths(size), offsets(size);
    MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::string all;
    if (rank == 0) {
      int total = 0;
      for (int r = 0; r < size; ++r)
        offsets[r] = total, total += lengths[r];
      all.resize(static_cast<std::size_t>(total));
    }
    MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0)
      for (int r = 1; r < size; ++r) {
        const auto part = nlohmann::json::parse(all.substr(static_cast<std::size_t>(offsets[r]), static_cast<std::size_t>(lengths[r])));
        for (const auto& item : part)
          results[item[0].get<std::size_t>()] = item[1];
      }
  }
#endif
  return results;
}

} // namespace ccsim::cli
