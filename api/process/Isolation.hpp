#pragma once
// SimGrid's Engine is one per process, so every simulation runs in a forked child: the child does a piece of work and
// sends back its JSON answer (or its io::InputError, same one-line message) through a pipe, and the parent reads it.
// A crashed child becomes one std::runtime_error line; a stop (api/process/RunControl.hpp) kills it. Children die with
// the parent (PR_SET_PDEATHSIG). The process pool (api/process/ProcessPool.hpp) runs many of these at once.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <stdexcept>

namespace ccsim::api {

/// Progress of a simulation: messages simulated so far of those planned (sim/collective/MessageCount.hpp).
using ProgressFn = std::function<void(std::uint64_t done, std::uint64_t total)>;

/// Whether the child's progress is wanted: RELAYED for await_isolated's on_progress; UNREAD for a caller that never
/// reads it (the process pool, which counts finished tasks), whose child then opens no progress pipe and starts no
/// reporter thread (a twentieth of a short simulation's time).
enum class Progress { RELAYED, UNREAD };

/// A piece of work running in a forked child; its answer arrives on `fd`, its progress on `progress_fd`.
struct IsolatedRun {
  int pid = -1;
  int fd = -1;          // the child's answer (JSON)
  int err_fd = -1;      // the child's stderr (an anonymous file), read only to explain a crash
  int progress_fd = -1; // lines "DONE TOTAL\n" (messages simulated, messages planned), at most 4 a second; -1: UNREAD
  std::function<nlohmann::json()> work; // to run it again (RunAgainFresh); what it refers to must outlive the run
  Progress progress = Progress::RELAYED;
  bool first_attempt = true;
};

/// Thrown by a child's work on its first attempt when it must start over in a fresh process: SimGrid's Engine can
/// be made only once per process, so a simulation that finds it needs another platform (sim::OutOfNodeSlots) cannot
/// run again where it is. finish_isolated / await_isolated then fork the work once more, with
/// may_run_again_fresh() false in that child, and return its answer.
struct RunAgainFresh : std::runtime_error {
  using std::runtime_error::runtime_error;
};
/// Whether this process is a child's first attempt at its work (one that may throw RunAgainFresh).
bool may_run_again_fresh();
/// Forks a child that runs `work` (which may throw io::InputError) and sends its document.
IsolatedRun start_isolated_work(const std::function<nlohmann::json()>& work, Progress progress = Progress::RELAYED);
/// Reads the child's whole answer (blocking), reaps it, and returns it or rethrows the child's InputError; a crash is
/// std::runtime_error. A child that gave no answer because ccsim is stopping (a signal killed it) throws RunStopped.
nlohmann::json finish_isolated(const IsolatedRun& run);
/// Waits for the child's answer while relaying its progress to `on_progress` (also called every 0.25 s without news,
/// so a progress line's clock keeps moving; 0 of 0 until the child has planned its messages) and watching for a stop: a signal or the time limit kills the child and
/// throws RunStopped (api/process/RunControl.hpp) with an empty progress note.
nlohmann::json await_isolated(const IsolatedRun& run, const ProgressFn& on_progress = {});
/// Kills the child, reaps it and closes its pipes (a run that is no longer wanted).
void abandon_isolated(const IsolatedRun& run);

/// In a simulation child: tells the parent how far the simulation is (throttled to 4 a second; never blocks).
/// A no-op in any other process.
void report_child_progress(std::uint64_t done, std::uint64_t total);

} // namespace ccsim::api
