// Signals, the time limit and the children a stop must end. The handler does only async-signal-safe work: it stores
// the signal, SIGKILLs the tracked children (lock-free slots) and, on a second signal, restores the default action
// and raises it again. Everything else (flushing results, the one-line message) happens in the command once it sees
// the flag.
#include "api/process/RunControl.hpp"

#include <fmt/format.h>

#include <array>
#include <atomic>
#include <chrono>
#include <csignal>
#include <sys/prctl.h>
#include <unistd.h>

namespace ccsim::api {

namespace {
// Initialised before main runs: the time limit counts from the start of the process, setup included.
const auto g_start = std::chrono::steady_clock::now();
volatile std::sig_atomic_t g_signal = 0;
double g_limit_s                    = -1; // < 0: none
constexpr double kNoLimit           = 1e18;

// Slot 0 means free. std::atomic<pid_t> is lock-free on Linux, so the handler may read it.
std::array<std::atomic<pid_t>, 1024> g_children{};
static_assert(std::atomic<pid_t>::is_always_lock_free);

void on_stop_signal(int sig)
{
  if (g_signal != 0) { // the second Ctrl-C: the user does not want to wait for a clean stop
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  g_signal = sig;
  for (auto& slot : g_children)
    if (const pid_t pid = slot.load(); pid > 0)
      kill(pid, SIGKILL);
}

std::string signal_name(int sig)
{
  return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : fmt::format("signal {}", sig);
}
} // namespace

RunStopped::RunStopped(int signal, const std::string& message) : std::runtime_error(message), signal_(signal) {}

void install_stop_handlers()
{
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  // SA_RESTART: reads and writes of pipes and stdout resume after the handler; poll() still returns EINTR (Linux
  // never restarts it), which is where the waiting loops look at the flag.
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

int stop_signal()
{
  return g_signal;
}

void set_time_limit(std::optional<double> seconds)
{
  g_limit_s = seconds ? *seconds : -1;
}

double run_seconds()
{
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - g_start).count();
}

double seconds_left()
{
  return g_limit_s < 0 ? kNoLimit : std::max(0.0, g_limit_s - run_seconds());
}

bool stop_requested()
{
  return g_signal != 0 || (g_limit_s >= 0 && run_seconds() >= g_limit_s);
}

RunStopped stop_exception(const std::string& progress)
{
  const std::string tail = progress.empty() ? "" : ": " + progress;
  if (g_signal != 0)
    return RunStopped(g_signal, fmt::format("stopped by {} after {:.1f} s{}", signal_name(g_signal), run_seconds(), tail));
  return RunStopped(0, fmt::format("--time-limit {:g} s reached after {:.1f} s{}", g_limit_s, run_seconds(), tail));
}

void check_stop(const std::string& progress)
{
  if (stop_requested())
    throw stop_exception(progress);
}

void track_child(pid_t pid)
{
  for (auto& slot : g_children) {
    pid_t free = 0;
    if (slot.compare_exchange_strong(free, pid))
      break;
  }
  // A signal that came between fork() and here found no slot: kill the child now rather than leave it running.
  if (g_signal != 0)
    kill(pid, SIGKILL);
}

void untrack_child(pid_t pid)
{
  for (auto& slot : g_children) {
    pid_t mine = pid;
    if (slot.compare_exchange_strong(mine, 0))
      break;
  }
}

bool become_child(pid_t parent)
{
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  // One thread here (fork copies only the caller): plain stores, not 1,024 locked exchanges.
  for (auto& slot : g_children)
    slot.store(0, std::memory_order_relaxed);
  g_limit_s = -1; // the parent enforces the limit (it kills the child)
  // PR_SET_PDEATHSIG fires when the thread that forked exits; ccsim forks from its main thread only.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  return getppid() == parent; // the parent died before prctl: nobody will signal us
}

} // namespace ccsim::api
