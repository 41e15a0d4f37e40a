// A small process pool over start_isolated/finish_isolated, plus the MPI split of points across ranks.
#include "cli/ExperimentRunner.hpp"

#include "cli/Progress.hpp"
#include "cli/RunControl.hpp"
#include "sim/io/JsonInput.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <poll.h>
#include <stdexcept>

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

/// Runs the points `mine` (indices) with a pool of `jobs` children; fills results[index]. Returns true when a signal
/// or the time limit stopped it (the running simulations are killed; finished points are kept).
bool run_local(const Experiment& e, const std::vector<std::size_t>& mine, const RunnerOptions& opt,
               std::vector<nlohmann::json>& results)
{
  struct Running {
    std::size_t index;
    IsolatedRun run;
  };
  std::vector<std::size_t> todo;
  std::size_t finished = 0;
  for (const auto i : mine) {
    if (i < opt.known.size() && !opt.known[i].is_null()) {
      results[i] = opt.known[i]; // resumed: done before this run
      ++finished;
    } else {
      todo.push_back(i);
    }
  }
  const std::size_t resumed = finished;
  const std::string what    = mpi_size() > 1 ? fmt::format("{} (rank {} of {})", e.name, mpi_rank(), mpi_size()) : e.name;
  Progress line("ccsim experiment", opt.progress);
  std::vector<Running> running;
  std::size_t next = 0, failed = 0;
  bool stop_launching = false;
  auto abandon_all    = [&] {
    for (const auto& r : running)
      abandon_isolated(r.run);
    running.clear();
  };
  while (next < todo.size() || !running.empty()) {
    if (stop_requested()) {
      abandon_all();
      return true;
    }
    while (!stop_launching && running.size() < static_cast<std::size_t>(std::max(1, opt.jobs)) && next < todo.size()) {
      const std::size_t idx = todo[next++];
      running.push_back({idx, start_isolated(e.points[idx].request)});
    }
    if (running.empty())
      break; // stopped launching after a failure, and nothing is left running
    std::vector<pollfd> fds;
    for (const auto& r : running)
      fds.push_back({r.run.fd, POLLIN, 0});
    // Wake every 0.25 s for the progress clock, and no later than the time limit.
    const int timeout_ms = static_cast<int>(std::ceil(std::min(0.25, seconds_left()) * 1000));
    if (poll(fds.data(), fds.size(), timeout_ms) < 0 && errno != EINTR) {
      abandon_all();
      throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
    }
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].revents == 0)
        continue;
      // The child writes its whole answer then exits: finish_isolated reads to EOF.
      const Running r = running[i];
      running.erase(running.begin() + static_cast<long>(i));
      bool point_failed = false;
      try {
        results[r.index] = finish_isolated(r.run);
      } catch (const RunStopped&) { // our signal handler killed it: not a result
        abandon_all();
        return true;
      } catch (const io::InputError& err) {
        results[r.index] = {{"error", err.what()}, {"error_kind", "input"}};
        point_failed     = true;
      } catch (const std::exception& err) {
        results[r.index] = {{"error", err.what()}, {"error_kind", "crash"}};
        point_failed     = true;
      }
      if (opt.on_finished)
        opt.on_finished(r.index, results[r.index]);
      ++finished;
      failed += point_failed;
      if (point_failed && !opt.keep_going) {
        stop_launching = true;
        abandon_all(); // stopping: the simulations still running are not wanted
      }
      break; // fds changed: poll again
    }
    std::string note = fmt::format("{} running", running.size());
    if (failed > 0)
      note += fmt::format(", {} failed", failed);
    line.update(what, static_cast<double>(finished), static_cast<double>(mine.size()), "points",
                static_cast<double>(resumed), note);
  }
  return false;
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

RunOutcome run_points(const Experiment& e, const RunnerOptions& opt)
{
  RunOutcome out;
  out.results    = std::vector<nlohmann::json>(e.points.size());
  auto& results  = out.results;
  const int size = mpi_size();
  const int rank = mpi_rank();
  std::vector<std::size_t> mine;
  for (std::size_t i = rank; i < e.points.size(); i += static_cast<std::size_t>(size))
    mine.push_back(i);
  RunnerOptions local = opt;
  local.progress      = opt.progress && rank == 0;
  out.stopped         = run_local(e, mine, local, results);
#ifdef CCSIM_HAVE_MPI
  // After a signal the ranks stop on their own, not together (mpirun may signal one rank only): no collective call
  // that could wait forever. Their finished points are in their rank logs. A time limit stops every rank, each by its
  // own clock, so they all reach the gather.
  if (size > 1 && out.stopped && stop_signal() != 0)
    out.gathered = false;
  if (size > 1 && out.gathered) {
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
  return out;
}

} // namespace ccsim::cli
