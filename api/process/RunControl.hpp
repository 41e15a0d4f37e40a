#pragma once
// How a long run ends early: SIGINT / SIGTERM, or `--time-limit SECONDS`. A signal only sets a flag and kills the
// forked children on the spot (each child is also set to die with its parent, PR_SET_PDEATHSIG); the command then
// notices at its next check, keeps what finished and throws RunStopped, which main turns into one line on stderr and
// exit 130 (SIGINT), 143 (SIGTERM) or 3 (time limit).

#include <optional>
#include <stdexcept>
#include <string>
#include <sys/types.h>

namespace ccsim::api {

/// Exit code of a run stopped by --time-limit (128 + signal for SIGINT / SIGTERM).
inline constexpr int kExitTimeLimit = 3;

/// A run ended before its end. what() is the one line main prints after "ccsim <command>: ".
class RunStopped : public std::runtime_error {
public:
  /// `signal` is SIGINT or SIGTERM, or 0 for the time limit.
  RunStopped(int signal, const std::string& message);
  int signal() const { return signal_; }
  int exit_code() const { return signal_ == 0 ? kExitTimeLimit : 128 + signal_; }

private:
  int signal_;
};

/// Installs the SIGINT / SIGTERM handlers (main, once). A second signal of either kind ends the process at once.
void install_stop_handlers();

/// The signal that asked the run to stop (SIGINT or SIGTERM), 0 when none came.
int stop_signal();

/// Sets --time-limit, counted from the start of the process; nullopt = no limit.
void set_time_limit(std::optional<double> seconds);
/// Seconds since the process started.
double run_seconds();
/// Seconds until the time limit (never negative), or a very large number when there is none.
double seconds_left();
/// True once a signal came or the time limit passed.
bool stop_requested();

/// The exception for the current stop (a signal first, else the time limit), its message saying how far the run got:
/// "stopped by SIGTERM after 12.3 s: <progress>" or "--time-limit 10 s reached after 10.0 s: <progress>".
/// Only meaningful when stop_requested().
RunStopped stop_exception(const std::string& progress);
/// Throws stop_exception(progress) when stop_requested().
void check_stop(const std::string& progress);

/// Children the signal handler kills with SIGKILL (simulations, plot scripts). At most 1024 at once.
void track_child(pid_t pid);
void untrack_child(pid_t pid);
/// In a freshly forked child: default SIGINT / SIGTERM handling and no tracked children (the parent's list holds the
/// child's siblings), then PR_SET_PDEATHSIG so the child dies with the parent even when the parent is SIGKILLed.
/// Returns false when the parent already died before that (the child must _exit).
bool become_child(pid_t parent);

} // namespace ccsim::api
