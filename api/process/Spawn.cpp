// fork + execvp with an argument array instead of std::system: no shell ever parses the arguments. Not posix_spawnp,
// because the child must also die with ccsim (PR_SET_PDEATHSIG, set between fork and exec; it survives the exec).
#include "api/process/Spawn.hpp"

#include "api/process/RunControl.hpp"
#include "io/JsonInput.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <filesystem>
#include <iostream>
#include <sys/wait.h>
#include <unistd.h>

namespace ccsim::api {

namespace {
/// run_program's work; `output` null passes the program's output through to our stderr.
int run_child(const std::vector<std::string>& argv, std::string* output)
{
  if (argv.empty())
    return -1;
  std::vector<char*> args;
  for (const auto& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::cout.flush();
  std::fflush(nullptr);
  int pipe_fds[2] = {-1, -1};
  if (output != nullptr && pipe2(pipe_fds, O_CLOEXEC) != 0)
    return -1;
  const pid_t parent = getpid();
  const pid_t pid    = fork();
  if (pid < 0) {
    if (output != nullptr) {
      close(pipe_fds[0]);
      close(pipe_fds[1]);
    }
    return -1;
  }
  if (pid == 0) {
    // Only async-signal-safe work between fork and exec (ccsim may have worker threads).
    if (!become_child(parent))
      _exit(127);
    if (output != nullptr) // both streams into the pipe (the dup2 copies lose O_CLOEXEC; the originals close at exec)
      dup2(pipe_fds[1], STDERR_FILENO);
    dup2(STDERR_FILENO, STDOUT_FILENO); // stdout stays clean for --format json
    const int null_in = open("/dev/null", O_RDONLY);
    if (null_in >= 0)
      dup2(null_in, STDIN_FILENO);
    execvp(args[0], args.data());
    _exit(127);
  }
  track_child(pid); // a signal to ccsim kills it with the simulations
  if (output != nullptr) {
    // Read until the program closes its end (it exits); only the last 64 KiB are kept (a traceback's end).
    close(pipe_fds[1]);
    constexpr std::size_t kKeep = 65536;
    char buffer[4096];
    for (;;) {
      const ssize_t n = read(pipe_fds[0], buffer, sizeof buffer);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      output->append(buffer, static_cast<std::size_t>(n));
      if (output->size() > 2 * kKeep)
        output->erase(0, output->size() - kKeep);
    }
    close(pipe_fds[0]);
  }
  int status = 0;
  int rc     = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) {
      rc = -1;
      break;
    }
  untrack_child(pid);
  if (rc != 0 || !WIFEXITED(status) || WEXITSTATUS(status) == 127)
    return -1;
  return WEXITSTATUS(status);
}

/// The last line of `text` that is not blank.
std::string last_line(const std::string& text)
{
  std::size_t end = text.find_last_not_of(" \t\r\n");
  if (end == std::string::npos)
    return "";
  const std::size_t start = text.rfind('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1, end + 1 - (start == std::string::npos ? 0 : start + 1));
}
} // namespace

int run_program(const std::vector<std::string>& argv)
{
  return run_child(argv, nullptr);
}

int run_program(const std::vector<std::string>& argv, std::string& output)
{
  return run_child(argv, &output);
}

std::string plot_python()
{
  std::error_code ec;
  return std::filesystem::exists("/usr/bin/python3", ec) ? "/usr/bin/python3" : "python3";
}

PlotRun run_plot_script(const std::string& script, const std::string& results_file)
{
  const auto path = std::filesystem::path(io::data_dir()) / "plots" / script;
  std::string output;
  const int rc = run_program({plot_python(), path.string(), results_file}, output);
  if (rc == 0) {
    std::cerr << output;
    return {};
  }
  const std::string line = last_line(output);
  // Python not found (nothing ran), or matplotlib not installed: the optional dependency, not a failure.
  if ((rc == -1 && line.empty()) || line.find("No module named 'matplotlib'") != std::string::npos)
    return {PlotRun::Status::NO_MATPLOTLIB, "(needs python3-matplotlib)"};
  return {PlotRun::Status::FAILED,
          fmt::format(": plots/{} failed: {}", script,
                      line.empty() ? (rc < 0 ? std::string("killed by a signal") : fmt::format("exit code {}", rc))
                                   : io::printable(line, 300))};
}

} // namespace ccsim::api
