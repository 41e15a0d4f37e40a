// `ccsim list [topologies|workloads|algorithms|experiments]`: the presets, each with its one-line description.
#include "algorithms/PlanAlgorithm.hpp"
#include "algorithms/Registry.hpp"
#include "api/options/ListCommand.hpp"
#include "cli/Command.hpp"
#include "cli/Options.hpp"
#include "api/output/Table.hpp"
#include "io/JsonInput.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <iostream>

namespace ccsim::cli {

namespace {
struct Entry {
  std::string kind, name, description;
};

std::vector<Entry> collect(const std::string& kind)
{
  std::vector<Entry> out;
  if (kind == "algorithms") {
    for (const auto& a : algorithms::list_algorithms()) {
      std::string what = a.description;
      if (!a.simulates)
        what += " [train only]";
      else if (!a.trains)
        what += " [simulate only]";
      // simulate's --param keys with their ranges and defaults (train's: ccsim train --help)
      if (const auto* plan = algorithms::find_plan_algorithm(a.name)) {
        std::string params;
        for (const auto& p : plan->param_specs())
          params += fmt::format("{}{} {:g}..{:g} (default {:g})", params.empty() ? "" : ", ", p.key, p.range.lo,
                                p.range.hi, p.default_value);
        if (!params.empty())
          what += "; --param " + params;
      }
      out.push_back({kind, a.name, what});
    }
    return out;
  }
  for (const auto& p : io::list_presets(kind))
    out.push_back({kind, p.name, p.description});
  return out;
}
} // namespace

int cmd_list(const std::vector<std::string>& args)
{
  const auto given = parse_command(list_options().options(), args);
  if (!given)
    return 0;
  const Format format = output_format(*given);
  const std::vector<std::string> chosen = build_list(*given).kinds;

  if (format != Format::TABLE) {
    nlohmann::json doc = nlohmann::json::object();
    std::vector<nlohmann::json> rows; // CSV: a row per preset, its kind in the first column
    for (const auto& kind : chosen) {
      doc[kind] = nlohmann::json::array();
      for (const auto& e : collect(kind)) {
        doc[kind].push_back({{"name", e.name}, {"description", e.description}});
        rows.push_back({{"description", e.description}, {"kind", kind}, {"name", e.name}});
      }
    }
    print_json_or_csv(format, doc, rows);
    return 0;
  }
  for (const auto& kind : chosen) {
    Table table({kind, "description"});
    for (const auto& e : collect(kind))
      table.add_row({e.name, e.description});
    table.print(std::cout, table_width());
    std::cout << "\n";
  }
  return 0;
}

} // namespace ccsim::cli
