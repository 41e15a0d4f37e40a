// Forked children for simulations (SimGrid's Engine is one per process): the child runs a piece of work and writes its
// answer (or its InputError) to a pipe; the parent reads it, relays progress, and turns a crash into one line.
#include "api/process/Isolation.hpp"

#include "api/process/WriteFully.hpp"
#include "api/process/RunControl.hpp"
#include "io/JsonInput.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <mutex>
#include <poll.h>
#include <stdexcept>
#include <sys/mman.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace ccsim::api {

namespace {
// In a simulation child: the write end of its progress pipe (-1 in ccsim itself), and the newest counts. The
// simulation only stores the counts; a reporter thread sends them every 0.25 s, so a long wait inside SimGrid (one
// all-to-all round of n(n-1) messages) still reports the last count instead of the one before the throttle.
int g_child_progress_fd = -1;
bool g_first_attempt     = false; // in a child: its first attempt at the work (may_run_again_fresh)
std::atomic<std::uint64_t> g_child_done{0}, g_child_total{0};
std::once_flag g_child_reporter;

void child_reporter()
{
  std::uint64_t sent_done = ~0ull, sent_total = ~0ull;
  for (;;) {
    const std::uint64_t done = g_child_done.load(), total = g_child_total.load();
    if (done != sent_done || total != sent_total) {
      const std::string line = fmt::format("{} {}\n", done, total);
      // Non-blocking: if the parent is not reading (an experiment's pool relays no per-point progress), a full pipe
      // drops the line instead of stalling anything. Lines are far below PIPE_BUF, so never torn.
      if (write(g_child_progress_fd, line.data(), line.size()) > 0)
        sent_done = done, sent_total = total;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
}
} // namespace

void report_child_progress(std::uint64_t done, std::uint64_t total)
{
  if (g_child_progress_fd < 0)
    return;
  g_child_total.store(total);
  g_child_done.store(done);
  // The thread ends with the child's _exit.
  std::call_once(g_child_reporter, [] { std::thread(child_reporter).detach(); });
}

bool may_run_again_fresh() { return g_first_attempt; }

namespace {
IsolatedRun start_child(const std::function<nlohmann::json()>& work, Progress progress_wanted, bool first_attempt)
{
  // Close-on-exec everywhere: a plot script started later must not hold a simulation's pipe open.
  int fds[2], progress[2] = {-1, -1};
  if (pipe2(fds, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  if (progress_wanted == Progress::RELAYED) {
    if (pipe2(progress, O_CLOEXEC) != 0) {
      close(fds[0]);
      close(fds[1]);
      throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    }
    fcntl(progress[1], F_SETFL, O_NONBLOCK);
  }
  // The child's stderr goes to an anonymous file the parent reads afterwards: SimGrid writes hundreds of lines of
  // backtrace when it aborts, and the user must see one line saying why. Progress has its own pipe (above), so the
  // parent draws it on the real stderr.
  const int err_fd = memfd_create("ccsim-simulation-stderr", MFD_CLOEXEC);
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  const pid_t parent = getpid();
  const pid_t pid    = fork();
  if (pid < 0)
    throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    // A child dies with its parent: a batch scheduler's SIGTERM (or SIGKILL) to ccsim must not leave a simulation
    // running; ccsim's own SIGINT / SIGTERM handler kills it too.
    if (!become_child(parent))
      _exit(1);
    close(fds[0]);
    if (progress[0] >= 0)
      close(progress[0]);
    g_child_progress_fd = progress[1]; // -1 when nobody reads it: report_child_progress starts no reporter thread
    g_first_attempt     = first_attempt;
    if (err_fd >= 0)
      dup2(err_fd, STDERR_FILENO);
    nlohmann::json answer;
    try {
      answer = {{"ok", work()}};
    } catch (const RunAgainFresh& e) {
      answer = first_attempt ? nlohmann::json{{"again", e.what()}} : nlohmann::json{{"error", e.what()}};
    } catch (const io::InputError& e) {
      answer = {{"input_error", {{"where", e.where()}, {"pointer", e.pointer()}, {"problem", e.problem()}}}};
    } catch (const std::exception& e) {
      answer = {{"error", e.what()}};
    } catch (...) {
      answer = {{"error", "unknown exception"}};
    }
    write_fully(fds[1], io::dump_json(answer));
    close(fds[1]);
    _exit(0); // skip atexit handlers and stdio flushes that belong to the parent
  }
  track_child(pid);
  close(fds[1]);
  if (progress[1] >= 0)
    close(progress[1]);
  return {pid, fds[0], err_fd, progress[0], work, progress_wanted, first_attempt};
}
} // namespace

IsolatedRun start_isolated_work(const std::function<nlohmann::json()>& work, Progress progress_wanted)
{
  return start_child(work, progress_wanted, true);
}

namespace {
/// The most telling line of a failed child's stderr, for a one-line report: the first that names an error, else the
/// first non-empty one; "" when it wrote nothing.
std::string child_stderr_summary(int fd)
{
  if (fd < 0)
    return "";
  std::string text(65536, '\0');
  const ssize_t n = pread(fd, text.data(), text.size(), 0);
  text.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  std::string first, telling;
  std::size_t start = 0;
  while (start < text.size() && telling.empty()) {
    const auto end   = std::min(text.find('\n', start), text.size());
    std::string line = text.substr(start, end - start);
    start            = end + 1;
    if (line.find_first_not_of(" \t\r") == std::string::npos)
      continue;
    if (first.empty())
      first = line;
    for (const char* word : {"rror", "mpossible", "eadlock", "ssertion", "bort", "xception"})
      if (line.find(word) != std::string::npos)
        telling = line;
  }
  return io::printable(telling.empty() ? first : telling, 200);
}

/// Reaps the child and closes the pipes every IsolatedRun holds except the answer's.
int reap(const IsolatedRun& run)
{
  int status = 0;
  while (waitpid(run.pid, &status, 0) < 0 && errno == EINTR) {
  }
  untrack_child(run.pid);
  if (run.progress_fd >= 0)
    close(run.progress_fd);
  return status;
}
} // namespace

void abandon_isolated(const IsolatedRun& run)
{
  kill(run.pid, SIGKILL);
  reap(run);
  close(run.fd);
  if (run.err_fd >= 0)
    close(run.err_fd);
}

namespace {
/// The child's whole answer document (blocking), the child reaped; a crash or stop throws as finish_isolated says.
nlohmann::json read_answer(const IsolatedRun& run)
{
  std::string text;
  char buf[65536];
  for (;;) {
    const ssize_t n = read(run.fd, buf, sizeof buf);
    if (n > 0)
      text.append(buf, static_cast<std::size_t>(n));
    else if (n == 0 || errno != EINTR)
      break;
  }
  close(run.fd);
  const int status         = reap(run);
  const std::string detail = text.empty() ? child_stderr_summary(run.err_fd) : "";
  if (run.err_fd >= 0)
    close(run.err_fd);
  if (text.empty()) {
    if (stop_requested()) // our own signal handler killed it: not a crash
      throw stop_exception("");
    const std::string why = detail.empty() ? "" : ": " + detail;
    if (WIFSIGNALED(status))
      throw std::runtime_error(fmt::format("simulation crashed (signal {}){}", WTERMSIG(status), why));
    throw std::runtime_error("simulation ended without an answer" + why);
  }
  nlohmann::json answer;
  try {
    answer = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    throw std::runtime_error("simulation sent an unreadable answer");
  }
  return answer;
}

/// The work's value from an answer that is not "again".
nlohmann::json answer_value(const nlohmann::json& answer)
{
  if (answer.contains("again")) // a second attempt answers "error" instead (start_child)
    throw std::runtime_error(answer["again"].get<std::string>());
  if (answer.contains("input_error")) {
    const auto& e = answer["input_error"];
    throw io::InputError(e["where"].get<std::string>(), e["pointer"].get<std::string>(), e["problem"].get<std::string>());
  }
  if (answer.contains("error"))
    throw std::runtime_error(answer["error"].get<std::string>());
  return answer["ok"];
}
} // namespace

nlohmann::json finish_isolated(const IsolatedRun& run)
{
  const auto answer = read_answer(run);
  if (answer.contains("again") && run.first_attempt)
    return finish_isolated(start_child(run.work, run.progress, false));
  return answer_value(answer);
}

nlohmann::json await_isolated(const IsolatedRun& run, const ProgressFn& on_progress)
{
  std::uint64_t done = 0, total = 0;
  bool heard         = false; // the child has said how many messages it plans (until then: 0 of 0)
  std::string pending;        // progress bytes after the last newline
  int progress_fd = run.progress_fd;
  for (;;) {
    if (stop_requested()) {
      abandon_isolated(run);
      throw stop_exception("");
    }
    pollfd fds[2] = {{run.fd, POLLIN, 0}, {progress_fd, POLLIN, 0}};
    // Wake at least every 0.25 s (the progress clock) and no later than the time limit.
    const int timeout_ms = static_cast<int>(std::ceil(std::min(0.25, seconds_left()) * 1000));
    if (poll(fds, 2, timeout_ms) < 0) {
      if (errno == EINTR)
        continue; // a signal: the loop's first line looks at it
      abandon_isolated(run);
      throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
    }
    if ((fds[1].revents & POLLIN) != 0) {
      char buf[4096];
      const ssize_t n = read(progress_fd, buf, sizeof buf);
      if (n > 0)
        pending.append(buf, static_cast<std::size_t>(n));
      // Complete lines only; the newest wins.
      for (auto end = pending.find('\n'); end != std::string::npos; end = pending.find('\n')) {
        unsigned long long d = 0, t = 0;
        if (std::sscanf(pending.substr(0, end).c_str(), "%llu %llu", &d, &t) == 2)
          done = d, total = t, heard = true;
        pending.erase(0, end + 1);
      }
    } else if ((fds[1].revents & (POLLHUP | POLLERR)) != 0) {
      progress_fd = -1; // the child closed it (it is exiting): poll ignores a negative fd
    }
    if (fds[0].revents != 0) {
      const auto answer = read_answer(run);
      if (answer.contains("again") && run.first_attempt) // its progress starts over with it
        return await_isolated(start_child(run.work, run.progress, false), on_progress);
      return answer_value(answer);
    }
    // Before the child has planned its messages (a 16,384-GPU platform takes most of a minute to build) the caller
    // hears 0 of 0: it can say the run is preparing instead of saying nothing.
    if (on_progress)
      on_progress(heard ? done : 0, heard ? total : 0);
  }
}


} // namespace ccsim::api
