// posix_spawnp instead of std::system: the arguments are an array, never a command line to parse.
#include "cli/Spawn.hpp"

#include "sim/io/JsonInput.hpp"

#include <cerrno>
#include <fcntl.h>
#include <filesystem>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace ccsim::cli {

int run_program(const std::vector<std::string>& argv)
{
  if (argv.empty())
    return -1;
  std::vector<char*> args;
  for (const auto& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  pid_t pid       = 0;
  const int error = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0)
    return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
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

} // namespace ccsim::cli
