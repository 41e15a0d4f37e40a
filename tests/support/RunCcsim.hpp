#pragma once
// Test helpers: run the built `ccsim` binary (CCSIM_BINARY) and capture its exit code, stdout and stderr;
// write throw-away JSON files.

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include <sys/wait.h>
#include <unistd.h>

namespace ccsim::test {

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::filesystem::path temp_dir()
{
  static const std::filesystem::path dir = [] {
    std::string tmpl = (std::filesystem::temp_directory_path() / "ccsim-test-XXXXXX").string();
    const char* made = mkdtemp(tmpl.data());
    return std::filesystem::path(made != nullptr ? made : "/tmp");
  }();
  return dir;
}

inline std::string read_file(const std::filesystem::path& path)
{
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Writes `text` to a fresh file in the test's temp folder and returns its path.
inline std::string write_temp_file(const std::string& name, const std::string& text)
{
  const auto path = temp_dir() / name;
  std::ofstream(path) << text;
  return path.string();
}

/// Runs `ccsim <args>` through the shell (args are pasted as given: quote them yourself).
inline RunResult run_ccsim(const std::string& args)
{
  static int counter = 0;
  const auto out = temp_dir() / ("out" + std::to_string(counter) + ".txt");
  const auto err = temp_dir() / ("err" + std::to_string(counter++) + ".txt");
  const std::string cmd = std::string(CCSIM_BINARY) + " " + args + " >" + out.string() + " 2>" + err.string() + " </dev/null";
  const int status = std::system(cmd.c_str());
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  r.out = read_file(out);
  r.err = read_file(err);
  return r;
}

/// Number of lines in `text` (a trailing newline does not start a new line).
/// `text` split at its line breaks (a last line without one counts too).
inline std::vector<std::string> lines_of_text(const std::string& text)
{
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    out.push_back(l);
  return out;
}

inline int line_count(const std::string& text)
{
  int n = 0;
  for (char c : text)
    n += c == '\n';
  if (!text.empty() && text.back() != '\n')
    ++n;
  return n;
}

} // namespace ccsim::test
