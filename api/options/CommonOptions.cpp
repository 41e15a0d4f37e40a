// The shared option lines (CommonOptions.hpp). Each command-line-only option says what a Python session does instead;
// docs/user-guide.md's "Python" section lists them.
#include "api/options/CommonOptions.hpp"

#include "api/output/Table.hpp"

#include <fmt/format.h>

namespace ccsim::api {

Option help_option()
{
  return flag_option("help", "show this help and exit").alias('h').command_line_only("Python: help(ccsim.<function>)");
}

Option format_option(const std::string& help)
{
  return choice_option("format", {"table", "json", "csv"}, help)
      .defaults("table")
      .command_line_only("Python returns the JSON document as objects (Record; Rows.to_pandas() for the rows)");
}

Option wide_option()
{
  return flag_option("wide", fmt::format("print tables at their full width (by default, long cells wrap to keep a table "
                                         "within {} columns)",
                                         kTableWidth))
      .command_line_only("Python prints no table");
}

Option quiet_option()
{
  return flag_option("quiet", "no progress lines on stderr")
      .alias('q')
      .command_line_only("Python prints no progress: pass progress= to hear it");
}

Option time_limit_option(const std::string& help)
{
  return number_option("time-limit", io::range::kTimeLimitS, help)
      .value("SECONDS")
      .command_line_only("the limit is the process's, counted from its start (api/process/RunControl.hpp), and a Python "
                         "session is one long process its calls share: stop a call from its progress callback or "
                         "with Ctrl-C instead");
}

} // namespace ccsim::api
