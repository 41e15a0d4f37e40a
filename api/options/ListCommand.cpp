// `list`'s option table and builder (ListCommand.hpp).
#include "api/options/ListCommand.hpp"

#include "api/options/CommonOptions.hpp"

#include "io/JsonInput.hpp"

#include <algorithm>

namespace ccsim::api {

namespace {
const std::vector<std::string> kKinds = {"topologies", "workloads", "algorithms", "experiments"};

void read_kinds(ListCommand& c, const GivenValue& value, const Option&)
{
  const std::string& what = value.text();
  if (what == "all")
    c.kinds = kKinds;
  else if (std::find(kKinds.begin(), kKinds.end(), what) != kKinds.end())
    c.kinds = {what};
  else
    throw io::InputError("ccsim list", "", "'" + what + "' is not one of: topologies, workloads, algorithms, experiments, all");
}
} // namespace

const OptionTable<ListCommand>& list_options()
{
  static const OptionTable<ListCommand> table = [] {
    using C    = ListCommand;
    auto lines = terminal_lines<C>();
    append(lines, {
        {choice_option("what", {"topologies", "workloads", "algorithms", "experiments", "all"},
                       "topologies, workloads, algorithms, experiments or all")
             .defaults("all")
             .first_argument()
             .in_python("kind"),
         read_kinds},
    });
    return OptionTable<C>("list", "[topologies|workloads|algorithms|experiments] [options]", "presets",
                          std::move(lines));
  }();
  return table;
}

ListCommand build_list(const GivenValues& given) { return list_options().fill(given); }

} // namespace ccsim::api
