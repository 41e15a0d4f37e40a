#pragma once
// Option parsing shared by every subcommand: --help, --format table|json, and turning Boost's parse errors
// into one-line InputErrors.

#include <boost/program_options.hpp>

#include <map>
#include <string>
#include <vector>

namespace ccsim::cli {

namespace po = boost::program_options;

enum class Format { TABLE, JSON };

/// Adds --help and --format to a subcommand's options.
void add_common_options(po::options_description& desc);

/// Parses `args` for subcommand `command`. Returns false when --help was printed (the caller returns 0).
/// Unknown options, missing values and bad types throw io::InputError("ccsim <command>", "", ...).
bool parse_options(const std::string& command, const std::vector<std::string>& args,
                   const po::options_description& desc, po::variables_map& vm,
                   const po::positional_options_description* positional = nullptr,
                   const std::string& usage = "");

/// The --format value; anything but table|json throws io::InputError naming --format.
Format output_format(const po::variables_map& vm);

/// "key=value" pairs of --param into a map; a malformed pair throws io::InputError naming --param.
std::map<std::string, std::string> parse_key_values(const std::vector<std::string>& pairs, const std::string& option);

} // namespace ccsim::cli
