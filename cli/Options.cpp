// Shared option handling: the same --help/--format behaviour and error style in every subcommand.
#include "cli/Options.hpp"

#include "api/output/Csv.hpp"
#include "api/process/RunControl.hpp"

#include "io/JsonInput.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>

#include <iostream>

namespace ccsim::cli {

namespace {
std::size_t g_table_width = kTableWidth; // 0 after --wide
} // namespace

void add_common_options(po::options_description& desc)
{
  desc.add_options()("help,h", "show this help and exit")(
      "format", po::value<std::string>()->default_value("table"), "output: table (for people), json (one document) or csv (the JSON's fields as columns)");
  add_wide_option(desc);
}

void add_wide_option(po::options_description& desc)
{
  desc.add_options()("wide", fmt::format("print tables at their full width (by default, long cells wrap to keep a table "
                                         "within {} columns)", kTableWidth).c_str());
}

std::size_t table_width() { return g_table_width; }

bool parse_options(const std::string& command, const std::vector<std::string>& args,
                   const po::options_description& desc, po::variables_map& vm,
                   const po::positional_options_description* positional, const std::string& usage)
{
  const po::positional_options_description none; // no positional arguments: an extra word is an error, not ignored
  try {
    auto parser = po::command_line_parser(args).options(desc);
    parser.positional(positional != nullptr ? *positional : none);
    po::store(parser.run(), vm);
    if (vm.count("help") != 0) {
      std::cout << "usage: ccsim " << command << (usage.empty() ? " [options]" : " " + usage) << "\n\n" << desc << "\n";
      return false;
    }
    po::notify(vm);
    g_table_width = vm.count("wide") != 0 ? 0 : kTableWidth;
  } catch (const po::error& e) {
    throw io::InputError("ccsim " + command, "", std::string(e.what()) + " (see ccsim " + command + " --help)");
  }
  return true;
}

std::optional<std::int64_t> integer_flag(const po::variables_map& vm, const std::string& name, const io::Range& range)
{
  if (vm.count(name) == 0)
    return std::nullopt;
  return io::parse_integer(vm[name].as<std::string>(), range, "--" + name);
}

std::optional<double> number_flag(const po::variables_map& vm, const std::string& name, const io::Range& range)
{
  if (vm.count(name) == 0)
    return std::nullopt;
  return io::parse_number(vm[name].as<std::string>(), range, "--" + name);
}

std::vector<std::int64_t> integer_list_flag(const po::variables_map& vm, const std::string& name, const io::Range& range,
                                            std::size_t max_items)
{
  const std::string text = vm[name].as<std::string>();
  std::vector<std::int64_t> out;
  std::size_t start = 0;
  while (true) {
    const auto comma = text.find(',', start);
    if (out.size() == max_items)
      throw io::InputError("--" + name, "", fmt::format("lists more than {} values", max_items));
    out.push_back(io::parse_integer(text.substr(start, comma - start), range, "--" + name));
    if (comma == std::string::npos)
      return out;
    start = comma + 1;
  }
}

std::optional<std::int64_t> size_flag(const po::variables_map& vm, const std::string& name, const io::Range& range)
{
  if (vm.count(name) == 0)
    return std::nullopt;
  std::string text     = vm[name].as<std::string>();
  std::int64_t scale   = 1;
  const char suffix    = text.empty() ? '\0' : static_cast<char>(std::toupper(static_cast<unsigned char>(text.back())));
  if (suffix == 'K' || suffix == 'M' || suffix == 'G') {
    scale = suffix == 'K' ? 1ll << 10 : suffix == 'M' ? 1ll << 20 : 1ll << 30;
    text.pop_back();
  }
  // The number part alone may not exceed the range once scaled: check it against range / scale first.
  const io::Range unscaled{range.lo / static_cast<double>(scale), range.hi / static_cast<double>(scale)};
  const std::int64_t v = io::parse_integer(text, io::Range{0, unscaled.hi}, "--" + name);
  io::check_range(static_cast<double>(v * scale), range, /*integer=*/true, "--" + name);
  return v * scale;
}

std::string choice_flag(const po::variables_map& vm, const std::string& name, const std::vector<std::string>& choices)
{
  const std::string v = vm[name].as<std::string>();
  if (std::find(choices.begin(), choices.end(), v) == choices.end()) {
    std::string known;
    for (const auto& c : choices)
      known += (known.empty() ? "" : ", ") + c;
    throw io::InputError("--" + name, "", io::echo(v) + " is not one of: " + known);
  }
  return v;
}

void add_long_run_options(po::options_description& desc, bool time_limit)
{
  desc.add_options()("quiet,q", po::bool_switch(), "no progress lines on stderr");
  if (time_limit)
    desc.add_options()("time-limit", po::value<std::string>()->value_name("SECONDS"),
                       "stop cleanly after this many seconds (counted from the start), keep what finished, exit 3");
}

bool read_long_run_options(const po::variables_map& vm)
{
  if (vm.count("time-limit") != 0)
    set_time_limit(number_flag(vm, "time-limit", io::range::kTimeLimitS));
  return !vm["quiet"].as<bool>();
}

Format output_format(const po::variables_map& vm)
{
  if (vm.count("format") == 0)
    return Format::TABLE;
  const std::string f = choice_flag(vm, "format", {"table", "json", "csv"});
  return f == "json" ? Format::JSON : f == "csv" ? Format::CSV : Format::TABLE;
}

bool print_json_or_csv(Format format, const nlohmann::json& doc, const std::vector<nlohmann::json>& rows,
                       const std::vector<std::string>& omit)
{
  if (format == Format::JSON)
    std::cout << io::dump_json(doc, 2) << "\n";
  else if (format == Format::CSV)
    write_csv(std::cout, rows, omit);
  return format != Format::TABLE;
}

std::map<std::string, std::string> parse_key_values(const std::vector<std::string>& pairs, const std::string& option)
{
  std::map<std::string, std::string> out;
  for (const auto& p : pairs) {
    const auto eq = p.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == p.size())
      throw io::InputError(option, "", io::echo(p) + " is not of the form key=value");
    out[p.substr(0, eq)] = p.substr(eq + 1);
  }
  return out;
}

} // namespace ccsim::cli
