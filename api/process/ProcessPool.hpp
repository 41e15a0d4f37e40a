#pragma once
// The one process pool of ccsim: `experiment`, `advise`, `validate` and `calibrate --steps` all run their simulations
// through it. Each task runs in its own forked child (api/process/Isolation.hpp), `jobs` at a time; results come back by
// task index, whatever order the children finish in. A signal or --time-limit (api/process/RunControl.hpp) kills the
// running children and ends the run early, keeping what finished.

#include "io/JsonInput.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ccsim::api {

struct TaskResult {
  enum class Status { NOT_RUN, OK, INPUT_ERROR, CRASH };
  Status status = Status::NOT_RUN;
  nlohmann::json value;                      // OK: the task's answer
  std::optional<io::InputError> input_error; // INPUT_ERROR: the child's one-line error, as thrown
  std::string error;                         // INPUT_ERROR: input_error->what(); CRASH: what went wrong
  bool ok() const { return status == Status::OK; }
  bool failed() const { return status == Status::INPUT_ERROR || status == Status::CRASH; }
};

/// How far a pool is: tasks finished (failed ones included) of those it was given, running now, failed so far.
struct PoolProgress {
  std::size_t finished = 0, total = 0, running = 0, failed = 0;
};

struct PoolOptions {
  int jobs = 1;
  /// Run every task even after one fails; otherwise stop launching at the first failure and kill the running ones.
  bool keep_going = true;
  /// Called after each finished task and every 0.25 s while tasks run (a progress line's clock).
  std::function<void(const PoolProgress&)> on_progress;
  /// Called in this process the moment a task finished or failed.
  std::function<void(std::size_t index, const TaskResult&)> on_finished;
};

struct PoolOutcome {
  /// By task index. NOT_RUN: not among those asked for, not launched after a failure (without keep_going), or cut
  /// short by a stop.
  std::vector<TaskResult> results;
  bool stopped = false; // a signal or the time limit ended the run early (stop_exception() says which)
};

/// Runs task(i) in a child for every i of `which` (launched in that order), with `count` results in all.
PoolOutcome run_pool(std::size_t count, const std::vector<std::size_t>& which,
                     const std::function<nlohmann::json(std::size_t)>& task, const PoolOptions& options);
/// The same for every index 0..count-1.
PoolOutcome run_pool(std::size_t count, const std::function<nlohmann::json(std::size_t)>& task,
                     const PoolOptions& options);

} // namespace ccsim::api
