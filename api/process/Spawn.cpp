// fork + execvp with an argument array instead of std::system: no shell ever parses the arguments. Not posix_spawnp,
// because the child must also die with ccsim (PR_SET_PDEATHSIG, set between fork and exec; it survives the exec).
#include "api/process/Spawn.hpp"

#include "api/process/RunControl.hpp"
#include "io/JsonInput.hpp"

#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <filesystem>
#include <iostream>
#include <sys/wait.h>
#include <unistd.h>

namespace ccsim::api {

int run_program(const std::vector<std::string>& argv)
{
  if (argv.empty())
    return -1;
  std::vector<char*> args;
  for (const auto& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::cout.flush();
  std::fflush(nullptr);
  const pid_t parent = getpid();
  const pid_t pid    = fork();
  if (pid < 0)
    return -1;
  if (pid == 0) {
    // Only async-signal-safe work between fork and exec (ccsim may have worker threads).
    if (!become_child(parent))
      _exit(127);
    dup2(STDERR_FILENO, STDOUT_FILENO); // stdout stays clean for --format json
    const int null_in = open("/dev/null", O_RDONLY);
    if (null_in >= 0)
      dup2(null_in, STDIN_FILENO);
    execvp(args[0], args.data());
    _exit(127);
  }
  track_child(pid); // a signal to ccsim kills it with the simulations
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

std::string plot_python()
{
  std::error_code ec;
  return std::filesystem::exists("/usr/bin/python3", ec) ? "/usr/bin/python3" : "python3";
}

bool run_plot_script(const std::string& script, const std::string& results_file)
{
  const auto path = std::filesystem::path(io::data_dir()) / "plots" / script;
  return run_program({plot_python(), path.string(), results_file}) == 0;
}

} // namespace ccsim::api
