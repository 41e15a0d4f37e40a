// Progress lines: throttled, on stderr, terminal-aware.
#include "cli/Progress.hpp"

#include "io/SafeText.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <unistd.h>

namespace ccsim::cli {

namespace {
constexpr double kQuietStartS = 2.0;  // runs shorter than this print no progress at all
constexpr double kTtyEveryS   = 0.25; // a terminal line is redrawn at most this often
constexpr double kLogEveryS   = 10.0; // plain lines (a log file, a pipe) at most this often
constexpr double kStalledS    = 10.0; // `done` unchanged this long: no ETA

double seconds_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b)
{
  return std::chrono::duration<double>(b - a).count();
}
} // namespace

std::string format_duration(double s)
{
  if (!std::isfinite(s) || s < 0)
    return "?";
  s = std::round(s); // whole seconds first, so 59.6 s never prints as "60 s" or "1 min 60 s"
  if (s < 60)
    return fmt::format("{:.0f} s", s);
  if (s < 3600)
    return fmt::format("{:.0f} min {:.0f} s", std::floor(s / 60), std::fmod(s, 60.0));
  return fmt::format("{:.0f} h {:.0f} min", std::floor(s / 3600), std::floor(std::fmod(s, 3600.0) / 60));
}

std::string format_count(double n)
{
  if (n < 10)
    return fmt::format("{:.2f}", n);
  if (n < 1e4)
    return fmt::format("{:.0f}", n);
  if (n < 1e6)
    return fmt::format("{:.1f}k", n / 1e3);
  if (n < 1e9)
    return fmt::format("{:.2f}M", n / 1e6);
  return fmt::format("{:.2f}G", n / 1e9);
}

Progress::Progress(std::string prefix, bool enabled)
    : prefix_(std::move(prefix)), enabled_(enabled), tty_(isatty(STDERR_FILENO) != 0),
      start_(std::chrono::steady_clock::now()), last_(start_), changed_(start_)
{
}

Progress::~Progress()
{
  finish();
}

std::string Progress::line(const std::string& what, double done, double total, const std::string& unit,
                           double done_at_start, const std::string& note) const
{
  const double elapsed = seconds_between(start_, std::chrono::steady_clock::now());
  const double rate    = elapsed > 0 ? (done - done_at_start) / elapsed : 0;
  // `what` and `note` may name an experiment or a topology from a file: escaped, as this line bypasses std::cerr.
  if (total <= 0 && done <= 0) // nothing counted yet: a large platform being built, its messages planned
    return fmt::format("{}: {}: preparing (building the platform, planning the work){}, {}", prefix_,
                       io::safe_text(what), note.empty() ? "" : ", " + io::safe_text(note), format_duration(elapsed));
  std::string text = fmt::format("{}: {}: {:.0f}/{:.0f} {}", prefix_, io::safe_text(what), done, total, unit);
  if (total > 0)
    text += fmt::format(" ({:.1f} %)", 100 * done / total);
  if (!note.empty())
    text += ", " + io::safe_text(note);
  text += fmt::format(", {} {}/s, {}", format_count(rate), unit, format_duration(elapsed));
  const double still = seconds_between(changed_, std::chrono::steady_clock::now());
  if (done == last_done_ && still >= kStalledS)
    text += ", ETA ?, no change for " + format_duration(still);
  else
    text += rate > 0 ? ", ETA " + format_duration((total - done) / rate) : ", ETA ?";
  return text;
}

void Progress::update(const std::string& what, double done, double total, const std::string& unit,
                      double done_at_start, const std::string& note)
{
  if (!enabled_)
    return;
  const auto now = std::chrono::steady_clock::now();
  if (done != last_done_) {
    last_done_ = done;
    changed_   = now;
  }
  if (seconds_between(start_, now) < kQuietStartS)
    return;
  if (printed_ && seconds_between(last_, now) < (tty_ ? kTtyEveryS : kLogEveryS))
    return;
  last_                  = now;
  const std::string text = line(what, done, total, unit, done_at_start, note);
  // One write per line: a line never interleaves with another process's output on the same terminal.
  const std::string out = tty_ ? "\r\033[K" + text : text + "\n";
  std::fwrite(out.data(), 1, out.size(), stderr);
  std::fflush(stderr);
  printed_ = true;
  drawn_   = tty_;
}

void Progress::finish()
{
  if (enabled_ && tty_ && drawn_) {
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
  }
  drawn_ = false;
}

} // namespace ccsim::cli
