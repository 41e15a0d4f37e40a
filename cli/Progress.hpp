#pragma once
// The progress line of a long run, on stderr only (stdout stays one clean document under --format json). Nothing
// appears during the first 2 s, so quick runs print exactly what they printed before. On a terminal it is one line
// rewritten in place (\r, at most 4 times a second); otherwise a plain line every 10 s, for logs. Format:
//
//   ccsim simulate: onebit-lamb exact, 512 GPUs: 1234567/5000000 messages (24.7 %), 61.2k messages/s, 20 s, ETA 1 min 2 s
//
// what | done/total unit (percent) | rate since the start | elapsed | ETA = what is left at that rate. Before anything
// is counted (0 of 0: a 16,384-GPU platform is built and its messages planned for most of a minute) the line says
// "ccsim simulate: adam exact, 16384 GPUs: preparing (building the platform, planning the work), 12 s". When `done` has
// not moved for 10 s (a simulation inside one huge round, a single long experiment point) the rate says nothing about
// what is left, and the line says "ETA ?, no change for N s" instead.

#include <chrono>
#include <string>

namespace ccsim::cli {

class Progress {
public:
  /// `prefix` starts every line ("ccsim simulate"); a disabled Progress (--quiet) prints nothing.
  Progress(std::string prefix, bool enabled);
  ~Progress();
  Progress(const Progress&)            = delete;
  Progress& operator=(const Progress&) = delete;

  /// Shows how far the run is, if it is time to. `done` counts from the start; `done_at_start` of them were done before
  /// this run began (resumed points) and do not count toward the rate. `note` follows the numbers (may be "").
  void update(const std::string& what, double done, double total, const std::string& unit, double done_at_start = 0,
              const std::string& note = "");
  /// Clears the terminal line, so what follows starts at column 0. Called by the destructor too.
  void finish();

  /// The line update() would print now (no throttling, no terminal codes).
  std::string line(const std::string& what, double done, double total, const std::string& unit, double done_at_start,
                   const std::string& note) const;

private:
  std::string prefix_;
  bool enabled_;
  bool tty_;
  bool printed_ = false; // a line was printed (the next waits its interval)
  bool drawn_   = false; // a terminal line is showing
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_;
  double last_done_ = -1;                            // `done` at the last update()
  std::chrono::steady_clock::time_point changed_;    // when `done` last changed
};

/// "45 s", "12 min 5 s", "3 h 20 min".
std::string format_duration(double seconds);
/// 1234 -> "1234", 61234 -> "61.2k", 5e6 -> "5.00M": compact counts for rates.
std::string format_count(double n);

} // namespace ccsim::cli
