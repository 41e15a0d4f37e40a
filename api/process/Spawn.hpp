#pragma once
// Running a helper program (the plotting scripts) with an argument vector: no shell ever sees the arguments, so a
// file name like "x'; touch INJECTED; echo '" reaches the program as one argument and nothing else runs.

#include <string>
#include <vector>

namespace ccsim::api {

/// Runs argv[0] (looked up in PATH) with `argv`, its stdout joined to our stderr so stdout stays clean for
/// --format json, and waits for it. The program dies with ccsim (PR_SET_PDEATHSIG) and with ccsim's SIGINT / SIGTERM.
/// Returns its exit status; -1 when it could not start (127) or died from a signal.
int run_program(const std::vector<std::string>& argv);
/// The same, with the program's stdout and stderr read into `output` (its last 64 KiB) instead of passed through.
int run_program(const std::vector<std::string>& argv, std::string& output);

/// The interpreter for plots/: Debian's /usr/bin/python3 (it has python3-matplotlib) before one first on PATH.
std::string plot_python();

/// How a plotting script ended.
struct PlotRun {
  enum class Status { DRAWN, NO_MATPLOTLIB, FAILED };
  Status status = Status::DRAWN;
  std::string message; // NO_MATPLOTLIB, FAILED: what to say after "<the figure> was not drawn"
};

/// Draws a figure with plots/<script> from a results file: the interpreter, the script and the file as three
/// arguments. What the script prints is passed on to stderr when it draws. When Python or matplotlib is missing
/// (the one optional dependency) the status says so; any other failure is FAILED, with the script's last line
/// (a Python traceback ends with the exception), for the caller to report and exit with kExitFigureFailed.
PlotRun run_plot_script(const std::string& script, const std::string& results_file);

} // namespace ccsim::api
