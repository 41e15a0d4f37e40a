#pragma once
// Every exit code of ccsim, in one place; README.md's exit-code table lists the same (tests/cli/InputMutation_test.cpp
// holds the two to each other).
//
//   0   success
//   1   failed experiment points, or an internal error
//   2   bad input (io::InputError: one line naming the file, JSON path or flag)
//   3   --time-limit reached (api::RunStopped)
//   4   an output could not be written (a full disk, the --out folder removed or read-only): OutputFailed
//   5   the results are written but their figure failed to draw (the plotting script's last line is printed)
//   130 SIGINT, 143 SIGTERM (128 + the signal)

#include <stdexcept>
#include <string>

namespace ccsim::api {

inline constexpr int kExitFailed       = 1;
inline constexpr int kExitBadInput     = 2;
inline constexpr int kExitOutputFailed = 4;
inline constexpr int kExitFigureFailed = 5;

/// Writing a result failed after the run's input was accepted: not bad input, so not exit 2. what() is the line main
/// prints after "ccsim <command>: ".
class OutputFailed : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Memory ran out (std::bad_alloc) where the size asked for is known: what() says it, and main prints it without
/// "internal error" (exit 1): a limit of the machine or of ulimit, not a bug.
class OutOfMemory : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// A plotting script failed on written results. what() is the line main prints after "ccsim <command>: ".
class FigureFailed : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

} // namespace ccsim::api
