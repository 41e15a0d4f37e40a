#pragma once
// The command line's side of the option tables (api/options/): each command's Boost flags generated from its table
// (names, short letters, placeholders, defaults and help text), the words parsed into the given values its request
// builder reads, and the options that are the command line's own (--help, --format, --wide, --quiet, --time-limit).
// Boost's own parse errors become one-line InputErrors.

#include "api/options/GivenValues.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace ccsim::api {}

namespace ccsim::cli {

// cli/ is written against the library (api/): its types and calls go by their plain names here.
using namespace ccsim::api;

enum class Format { TABLE, JSON, CSV };

/// The width tables print at: kTableWidth (api/output/Table.hpp), or 0 (unlimited) after --wide.
std::size_t table_width();

/// Parses `args` against the command's table: every flag the table declares (a positional argument where one is
/// marked so), Boost's errors (unknown options, missing values, a required option missing, a word too many) as
/// io::InputError("ccsim <command>", "", ...). Empty when --help was printed (the caller returns 0); else each option
/// given, as typed (defaults are the builder's to apply).
std::optional<GivenValues> parse_command(const CommandOptions& options, const std::vector<std::string>& args);

/// The --format value (table by default); anything but table|json|csv throws io::InputError naming --format.
Format output_format(const GivenValues& given);

/// --time-limit sets the process's time limit; returns true when progress lines are wanted (no --quiet).
bool read_long_run_options(const GivenValues& given);

/// --format json prints `doc` (indented) and --format csv prints `rows` as CSV (api/output/Csv.hpp: the rows' fields
/// as columns, leaving out their top-level fields named in `omit`); returns false for --format table, which the
/// caller prints itself.
bool print_json_or_csv(Format format, const nlohmann::json& doc, const std::vector<nlohmann::json>& rows,
                       const std::vector<std::string>& omit = {});

} // namespace ccsim::cli
