#pragma once
// Test helpers for long runs: start `ccsim` in the background (argument vector, stdout and stderr to files), find its
// children in /proc, signal it, and wait for events (a file line count, a child appearing, a process gone) with
// generous time-outs, so the tests react to what happened instead of sleeping a guessed time.

#include "tests/support/RunCcsim.hpp"

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace ccsim::test {

/// Starts CCSIM_BINARY with `args`; stdout and stderr go to the files named. Returns its pid.
inline pid_t start_ccsim(const std::vector<std::string>& args, const std::string& out_file, const std::string& err_file)
{
  std::vector<std::string> argv = {CCSIM_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  const pid_t pid = fork();
  if (pid == 0) {
    const int out = open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int in  = open("/dev/null", O_RDONLY);
    dup2(out, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    dup2(in, STDIN_FILENO);
    std::vector<char*> c;
    for (auto& a : argv)
      c.push_back(a.data());
    c.push_back(nullptr);
    execv(c[0], c.data());
    _exit(127);
  }
  return pid;
}

/// Waits for `pid` (a child of the test) and returns its exit code, or 128 + signal.
inline int wait_exit(pid_t pid)
{
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/// Calls `ready` every 10 ms until it returns true or `timeout_s` passes; returns its last answer.
template <typename F> bool wait_until(F ready, double timeout_s)
{
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (!ready()) {
    if (std::chrono::steady_clock::now() > end)
      return ready();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

/// State letter and parent pid of a process from /proc/PID/stat ('\0' when it does not exist).
inline std::pair<char, pid_t> proc_state(pid_t pid)
{
  const std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
  const auto close       = stat.rfind(')'); // the command name may hold spaces and parentheses
  if (close == std::string::npos || close + 4 >= stat.size())
    return {'\0', 0};
  char state  = stat[close + 2];
  pid_t ppid  = 0;
  std::size_t i = close + 4;
  while (i < stat.size() && stat[i] >= '0' && stat[i] <= '9')
    ppid = ppid * 10 + (stat[i++] - '0');
  return {state, ppid};
}

/// Gone: no longer in /proc, or a zombie (dead; only its exit status waits to be collected).
inline bool process_gone(pid_t pid)
{
  const char state = proc_state(pid).first;
  return state == '\0' || state == 'Z' || state == 'X';
}

/// The live children of `parent`.
inline std::vector<pid_t> children_of(pid_t parent)
{
  std::vector<pid_t> out;
  std::error_code ec;
  for (std::filesystem::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos)
      continue;
    const pid_t pid = static_cast<pid_t>(std::stol(name));
    const auto [state, ppid] = proc_state(pid);
    if (ppid == parent && state != 'Z' && state != '\0')
      out.push_back(pid);
  }
  return out;
}

/// Lines of a file (0 when it does not exist).
inline int file_lines(const std::string& path)
{
  return line_count(read_file(path));
}

} // namespace ccsim::test
