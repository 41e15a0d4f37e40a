#pragma once
// Numbers from user input checked against a Range (io/Limits.hpp): the one place a limit is enforced, for JSON
// values (io/JsonObject.hpp) and command-line text alike.

#include "io/Limits.hpp"

#include <cstdint>
#include <string>

namespace ccsim::io {

/// A value checked against a range: finite, inside [lo, hi] (or (lo, hi]), and whole when `integer`.
/// Violations throw InputError(where, pointer, "must be ... (got X)").
double check_range(double value, const Range& range, bool integer, const std::string& where,
                   const std::string& pointer = "");
/// Text from the command line as a number in `range`: the whole text must be one finite number ("1e3", "0.5").
double parse_number(const std::string& text, const Range& range, const std::string& where);
/// Text as a whole number in `range` (64-bit parse; "-1" never wraps, "1e3" and "2.5" are rejected).
std::int64_t parse_integer(const std::string& text, const Range& range, const std::string& where);

} // namespace ccsim::io
