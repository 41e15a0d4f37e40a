// The command line's flags, generated from each command's option table, and the options that are its own.
#include "cli/Options.hpp"

#include "api/options/OptionText.hpp"
#include "api/output/Csv.hpp"
#include "api/output/Table.hpp"
#include "api/process/RunControl.hpp"

#include "io/JsonInput.hpp"

#include <boost/program_options.hpp>

#include <iostream>

namespace ccsim::cli {

namespace po = boost::program_options;

namespace {
std::size_t g_table_width = kTableWidth; // 0 after --wide

/// Boost's description of the table's options, in table order: a flag takes no value; every other option is read
/// as text (Boost's own conversion would wrap "-1" into 2^64-1 and accept "nan") and parsed by its kind afterwards.
po::options_description describe(const CommandOptions& options)
{
  po::options_description desc("ccsim " + options.command + " options");
  for (const auto& o : options.options) {
    const std::string names = o.short_name != '\0' ? o.name + "," + std::string(1, o.short_name) : o.name;
    if (o.kind == OptionKind::FLAG) {
      desc.add_options()(names.c_str(), o.help.c_str());
      continue;
    }
    if (o.repeats) {
      auto* value = po::value<std::vector<std::string>>()->composing();
      if (!o.value_name.empty())
        value->value_name(o.value_name);
      if (o.required)
        value->required();
      desc.add_options()(names.c_str(), value, o.help.c_str());
      continue;
    }
    auto* value = po::value<std::string>();
    if (!o.value_name.empty())
      value->value_name(o.value_name);
    if (!o.default_text.empty())
      value->default_value(o.default_text);
    if (o.required)
      value->required();
    desc.add_options()(names.c_str(), value, o.help.c_str());
  }
  return desc;
}

/// What Boost parsed, as the given values: each option typed on the command line, none that Boost only defaulted.
GivenValues given_values(const CommandOptions& options, const po::variables_map& vm)
{
  GivenValues given(options);
  for (const auto& o : options.options) {
    if (vm.count(o.name) == 0 || vm[o.name].defaulted())
      continue;
    if (o.kind == OptionKind::FLAG)
      given.add_flag(o.name);
    else if (o.repeats)
      for (const auto& text : vm[o.name].as<std::vector<std::string>>())
        given.add(o.name, text);
    else
      given.add(o.name, vm[o.name].as<std::string>());
  }
  return given;
}
/// `args` with every bare use of an option that has a bare value written out: `--recompute` followed by another flag
/// or by nothing becomes `--recompute=full`; a word after it stays its value (and a wrong one is reported as such).
/// Boost's implicit values would not take `--recompute selective` as one option's value.
std::vector<std::string> with_bare_values(const CommandOptions& options, const std::vector<std::string>& args)
{
  std::vector<std::string> out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    out.push_back(args[i]);
    for (const auto& o : options.options) {
      if (o.bare_value.empty() || args[i] != "--" + o.name)
        continue;
      const bool valued = i + 1 < args.size() && args[i + 1].rfind('-', 0) != 0;
      if (!valued)
        out.back() += "=" + o.bare_value;
    }
  }
  return out;
}
} // namespace

std::size_t table_width() { return g_table_width; }

std::optional<GivenValues> parse_command(const CommandOptions& options, const std::vector<std::string>& args)
{
  const std::string& command       = options.command;
  const po::options_description desc = describe(options);
  po::positional_options_description positional; // none marked: an extra word is an error, not ignored
  for (const auto& o : options.options)
    if (o.positional)
      positional.add(o.name.c_str(), 1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(with_bare_values(options, args)).options(desc).positional(positional).run(), vm);
    if (vm.count("help") != 0) {
      std::cout << "usage: ccsim " << command << (options.usage.empty() ? " [options]" : " " + options.usage)
                << "\n\n"
                << desc << "\n";
      return std::nullopt;
    }
    po::notify(vm);
    g_table_width = vm.count("wide") != 0 ? 0 : kTableWidth;
  } catch (const po::error& e) {
    throw io::InputError("ccsim " + command, "", std::string(e.what()) + " (see ccsim " + command + " --help)");
  }
  return given_values(options, vm);
}

Format output_format(const GivenValues& given)
{
  const auto text = given.text_or_default("format");
  const std::string f = read_text(text.value_or("table"), *given.options().find("format"));
  return f == "json" ? Format::JSON : f == "csv" ? Format::CSV : Format::TABLE;
}

bool read_long_run_options(const GivenValues& given)
{
  if (const auto* limit = given.find("time-limit"))
    set_time_limit(read_number(limit->text(), *given.options().find("time-limit")));
  return !given.has("quiet");
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

} // namespace ccsim::cli
