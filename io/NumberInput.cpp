// Numbers from input: parsed wide (double, or 64-bit for whole numbers) and checked before any narrowing, so "-1"
// never wraps into a huge count and nan or inf never reach a loop. Bounds are printed as people write them.
#include "io/NumberInput.hpp"

#include "io/InputError.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

namespace ccsim::io {

namespace {
/// Bounds as people write them: whole numbers in full up to 10^12 (16777216, not 1.67772e+07), others in %g.
std::string format_bound(double v)
{
  if (std::fabs(v) < 1e12 && std::floor(v) == v)
    return fmt::format("{}", static_cast<long long>(v));
  return fmt::format("{:g}", v);
}
} // namespace

double check_range(double value, const Range& range, bool integer, const std::string& where, const std::string& pointer)
{
  if (!std::isfinite(value))
    throw InputError(where, pointer, fmt::format("must be a finite number (got {})", value));
  if (integer && std::floor(value) != value)
    throw InputError(where, pointer, fmt::format("must be a whole number (got {})", value));
  const bool below = range.lo_open ? !(value > range.lo) : !(value >= range.lo);
  if (below || !(value <= range.hi))
    throw InputError(where, pointer,
                     fmt::format("must be {} {} and <= {} (got {})", range.lo_open ? ">" : ">=", format_bound(range.lo),
                                 format_bound(range.hi), value));
  return value;
}

double parse_number(const std::string& text, const Range& range, const std::string& where)
{
  double v             = 0;
  const char* end      = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec == std::errc::result_out_of_range)
    throw InputError(where, "", fmt::format("{} is out of range (must be <= {})", echo(text), format_bound(range.hi)));
  if (text.empty() || ec != std::errc() || ptr != end)
    throw InputError(where, "", fmt::format("{} is not a number", echo(text)));
  return check_range(v, range, /*integer=*/false, where);
}

std::int64_t parse_integer(const std::string& text, const Range& range, const std::string& where)
{
  std::int64_t v       = 0;
  const char* end      = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec == std::errc::result_out_of_range)
    throw InputError(where, "", fmt::format("{} is out of range (must be >= {} and <= {})", echo(text),
                                            format_bound(range.lo), format_bound(range.hi)));
  if (text.empty() || ec != std::errc() || ptr != end)
    throw InputError(where, "", fmt::format("{} is not a whole number", echo(text)));
  check_range(static_cast<double>(v), range, /*integer=*/true, where);
  return v;
}

} // namespace ccsim::io
