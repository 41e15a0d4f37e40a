// The command line offers exactly its commands' option tables (api/options/): every flag `ccsim COMMAND --help` lists
// is an option of the table and every option of the table is a flag, for every command. The Python side of the same
// parity (every keyword an option, every option not marked command-line-only a keyword) is python/tests/test_options.py.
#include "api/options/CommandTables.hpp"
#include "cli/Command.hpp"
#include "tests/support/RunCcsim.hpp"

#include <catch2/catch.hpp>

#include <regex>
#include <set>
#include <sstream>

namespace {
/// The long flags of the option column of `ccsim COMMAND --help` ("  --gpus N   number of GPUs", "  -b [ --minbytes ]").
std::set<std::string> listed_flags(const std::string& command)
{
  const auto r = ccsim::test::run_ccsim(command + " --help");
  REQUIRE(r.exit_code == 0);
  std::set<std::string> flags;
  static const std::regex flag(R"(^  (?:-\w \[ )?--([a-z0-9-]+))");
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, flag))
      flags.insert(m[1]);
  }
  return flags;
}
} // namespace

TEST_CASE("Option parity: every command's flags are its option table's options, no more and no fewer", "[cli]")
{
  std::set<std::string> with_tables;
  for (const auto* t : ccsim::api::command_tables()) {
    with_tables.insert(t->command);
    std::set<std::string> options;
    for (const auto& o : t->options)
      options.insert(o.name);
    INFO("ccsim " << t->command);
    CHECK(listed_flags(t->command) == options);
  }
  // ...and every command of the command line has a table.
  std::set<std::string> commands;
  for (const auto& c : ccsim::cli::commands())
    commands.insert(c.name);
  CHECK(commands == with_tables);
}

TEST_CASE("Option parity: every option only the command line has says why Python has no keyword for it", "[cli]")
{
  for (const auto* t : ccsim::api::command_tables())
    for (const auto& o : t->options) {
      INFO(t->command << " --" << o.name);
      // The terminal's own options are the command line's alone; every other option is Python's too.
      const bool terminal = o.name == "help" || o.name == "format" || o.name == "wide" || o.name == "quiet" ||
                            o.name == "time-limit" || (t->command == "advise" && o.name == "verify");
      CHECK(terminal == !o.cli_only.empty());
    }
}
