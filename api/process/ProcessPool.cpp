// The process pool over start_isolated_work / finish_isolated; see ProcessPool.hpp.
#include "api/process/ProcessPool.hpp"

#include "api/process/Isolation.hpp"
#include "api/process/RunControl.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <poll.h>
#include <stdexcept>

namespace ccsim::api {

PoolOutcome run_pool(std::size_t count, const std::vector<std::size_t>& which,
                     const std::function<nlohmann::json(std::size_t)>& task, const PoolOptions& opt)
{
  struct Running {
    std::size_t index;
    IsolatedRun run;
  };
  PoolOutcome out;
  out.results.resize(count);
  PoolProgress progress;
  progress.total = which.size();
  std::vector<Running> running;
  std::size_t next    = 0;
  bool stop_launching = false;
  auto abandon_all    = [&] {
    for (const auto& r : running)
      abandon_isolated(r.run);
    running.clear();
  };
  while (next < which.size() || !running.empty()) {
    if (stop_requested()) {
      abandon_all();
      out.stopped = true;
      return out;
    }
    while (!stop_launching && running.size() < static_cast<std::size_t>(std::max(1, opt.jobs)) &&
           next < which.size()) {
      const std::size_t idx = which[next++];
      running.push_back({idx, start_isolated_work([&task, idx] { return task(idx); }, Progress::UNREAD)});
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
      TaskResult& result = out.results[r.index];
      try {
        result.value  = finish_isolated(r.run);
        result.status = TaskResult::Status::OK;
      } catch (const RunStopped&) { // our signal handler killed it: not a result
        abandon_all();
        out.stopped = true;
        return out;
      } catch (const io::InputError& err) {
        result.status      = TaskResult::Status::INPUT_ERROR;
        result.input_error = err;
        result.error       = err.what();
      } catch (const std::exception& err) {
        result.status = TaskResult::Status::CRASH;
        result.error  = err.what();
      }
      if (opt.on_finished)
        opt.on_finished(r.index, result);
      ++progress.finished;
      if (result.failed()) {
        ++progress.failed;
        if (!opt.keep_going) {
          stop_launching = true;
          abandon_all(); // stopping: the simulations still running are not wanted
        }
      }
      break; // fds changed: poll again
    }
    progress.running = running.size();
    if (opt.on_progress)
      opt.on_progress(progress);
  }
  return out;
}

PoolOutcome run_pool(std::size_t count, const std::function<nlohmann::json(std::size_t)>& task,
                     const PoolOptions& options)
{
  std::vector<std::size_t> all(count);
  for (std::size_t i = 0; i < count; ++i)
    all[i] = i;
  return run_pool(count, all, task, options);
}

} // namespace ccsim::api
