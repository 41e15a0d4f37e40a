#pragma once
// Option parsing shared by every subcommand: --help, --format table|json, and turning Boost's parse errors
// into one-line InputErrors.

#include "io/Limits.hpp"

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ccsim::api {}

namespace ccsim::cli {

// cli/ is written against the library (api/): its types and calls go by their plain names here.
using namespace ccsim::api;

namespace po = boost::program_options;

enum class Format { TABLE, JSON, CSV };

/// Tables wider than this wrap their long cells (api/output/Table.hpp) unless --wide is given.
inline constexpr std::size_t kTableWidth = 160;

/// Adds --help, --format and --wide to a subcommand's options.
void add_common_options(po::options_description& desc);
/// --wide alone, for subcommands that declare --help and --format themselves.
void add_wide_option(po::options_description& desc);
/// The width tables print at: kTableWidth, or 0 (unlimited) after --wide.
std::size_t table_width();

/// Parses `args` for subcommand `command`. Returns false when --help was printed (the caller returns 0).
/// Unknown options, missing values, bad types and positional arguments beyond `positional` (none when it is null)
/// throw io::InputError("ccsim <command>", "", ...).
bool parse_options(const std::string& command, const std::vector<std::string>& args,
                   const po::options_description& desc, po::variables_map& vm,
                   const po::positional_options_description* positional = nullptr,
                   const std::string& usage = "");

/// Flags that carry numbers are declared as po::value<std::string> and read through these: Boost's own conversion
/// would wrap "-1" into 2^64-1 for an unsigned type and accept "nan" or "inf" for a double. The range comes from
/// io/Limits.hpp; a violation is io::InputError("--<name>", ...). Empty when the flag is absent (a defaulted
/// flag is always present).
std::optional<std::int64_t> integer_flag(const po::variables_map& vm, const std::string& name, const io::Range& range);
std::optional<double> number_flag(const po::variables_map& vm, const std::string& name, const io::Range& range);
/// A comma-separated list of whole numbers ("8,64,256"), each in `range`, at most `max_items` of them.
std::vector<std::int64_t> integer_list_flag(const po::variables_map& vm, const std::string& name, const io::Range& range,
                                            std::size_t max_items);
/// A byte count as nccl-tests writes it: a whole number with an optional K, M or G suffix (powers of 1024, as
/// nccl-tests' parsesize), e.g. "8", "100M", "1G"; checked against `range` after scaling.
std::optional<std::int64_t> size_flag(const po::variables_map& vm, const std::string& name, const io::Range& range);
/// A string flag that must be one of `choices` (the error lists them).
std::string choice_flag(const po::variables_map& vm, const std::string& name, const std::vector<std::string>& choices);

/// The options of every long-running command: --quiet (no progress lines on stderr) and, when `time_limit`,
/// --time-limit SECONDS (stop cleanly past it, exit 3: api/process/RunControl.hpp).
void add_long_run_options(po::options_description& desc, bool time_limit);
/// Reads them: sets the time limit, and returns true when progress lines are wanted (no --quiet).
bool read_long_run_options(const po::variables_map& vm);

/// The --format value; anything but table|json|csv throws io::InputError naming --format.
Format output_format(const po::variables_map& vm);

/// --format json prints `doc` (indented) and --format csv prints `rows` as CSV (api/output/Csv.hpp: the rows' fields
/// as columns, leaving out their top-level fields named in `omit`); returns false for --format table, which the
/// caller prints itself.
bool print_json_or_csv(Format format, const nlohmann::json& doc, const std::vector<nlohmann::json>& rows,
                       const std::vector<std::string>& omit = {});

/// "key=value" pairs of --param into a map; a malformed pair throws io::InputError naming --param.
std::map<std::string, std::string> parse_key_values(const std::vector<std::string>& pairs, const std::string& option);

} // namespace ccsim::cli
