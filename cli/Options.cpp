// Shared option handling: the same --help/--format behaviour and error style in every subcommand.
#include "cli/Options.hpp"

#include "sim/io/JsonInput.hpp"

#include <iostream>

namespace ccsim::cli {

void add_common_options(po::options_description& desc)
{
  desc.add_options()("help,h", "show this help and exit")(
      "format", po::value<std::string>()->default_value("table"), "output: table (for people) or json (one document)");
}

bool parse_options(const std::string& command, const std::vector<std::string>& args,
                   const po::options_description& desc, po::variables_map& vm,
                   const po::positional_options_description* positional, const std::string& usage)
{
  try {
    auto parser = po::command_line_parser(args).options(desc);
    if (positional != nullptr)
      parser.positional(*positional);
    po::store(parser.run(), vm);
    if (vm.count("help") != 0) {
      std::cout << "usage: ccsim " << command << (usage.empty() ? " [options]" : " " + usage) << "\n\n" << desc << "\n";
      return false;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    throw io::InputError("ccsim " + command, "", std::string(e.what()) + " (see ccsim " + command + " --help)");
  }
  return true;
}

Format output_format(const po::variables_map& vm)
{
  const std::string f = vm.count("format") != 0 ? vm["format"].as<std::string>() : "table";
  if (f == "table")
    return Format::TABLE;
  if (f == "json")
    return Format::JSON;
  throw io::InputError("--format", "", "'" + f + "' is not one of: table, json");
}

std::map<std::string, std::string> parse_key_values(const std::vector<std::string>& pairs, const std::string& option)
{
  std::map<std::string, std::string> out;
  for (const auto& p : pairs) {
    const auto eq = p.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == p.size())
      throw io::InputError(option, "", "'" + p + "' is not of the form key=value");
    out[p.substr(0, eq)] = p.substr(eq + 1);
  }
  return out;
}

} // namespace ccsim::cli
