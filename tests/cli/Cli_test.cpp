// The command-line contract common to every subcommand: help, --format, one-line errors with exit code 2.
#include "tests/support/RunCcsim.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <set>
#include <sstream>

using ccsim::test::line_count;
using ccsim::test::run_ccsim;

TEST_CASE("ccsim: --help lists every subcommand of the contract", "[cli]")
{
  const auto r = run_ccsim("--help");
  CHECK(r.exit_code == 0);
  for (const char* cmd : {"list", "simulate", "experiment", "train", "bench-kernels", "advise"})
    CHECK(r.out.find(std::string("  ") + cmd + " ") != std::string::npos);
}

TEST_CASE("ccsim: an unknown subcommand is one line on stderr and exit 2", "[cli]")
{
  const auto r = run_ccsim("frobnicate");
  CHECK(r.exit_code == 2);
  CHECK(line_count(r.err) == 1);
  CHECK(r.err.find("unknown command 'frobnicate'") != std::string::npos);
}

TEST_CASE("ccsim list: --format json is one JSON document with the three preset kinds", "[cli]")
{
  const auto r = run_ccsim("list --format json");
  REQUIRE(r.exit_code == 0);
  const auto doc = nlohmann::json::parse(r.out);
  CHECK(doc.contains("topologies"));
  CHECK(doc.contains("workloads"));
  CHECK(doc.contains("algorithms"));
}

TEST_CASE("ccsim list: an unknown --format is rejected naming the option", "[cli]")
{
  const auto r = run_ccsim("list --format xml");
  CHECK(r.exit_code == 2);
  CHECK(r.err == "ccsim: --format: 'xml' is not one of: table, json, csv\n");
}

TEST_CASE("ccsim list: an unknown option is one line and exit 2", "[cli]")
{
  const auto r = run_ccsim("list --bogus");
  CHECK(r.exit_code == 2);
  CHECK(line_count(r.err) == 1);
  CHECK(r.err.find("--bogus") != std::string::npos);
}

TEST_CASE("ccsim list: each subcommand answers --help with exit 0", "[cli]")
{
  for (const char* cmd : {"list", "simulate", "experiment", "train", "bench-kernels", "advise"}) {
    const auto r = run_ccsim(std::string(cmd) + " --help");
    INFO(cmd << ": " << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("--format") != std::string::npos);
  }
}

TEST_CASE("ccsim list experiments: every experiment file with its description - tables fit 160 columns unless --wide",
          "[cli]")
{
  const auto r = run_ccsim("list experiments --format json");
  REQUIRE(r.exit_code == 0);
  const auto doc = nlohmann::json::parse(r.out);
  std::set<std::string> names;
  for (const auto& e : doc["experiments"])
    names.insert(e["name"].get<std::string>());
  for (const char* e : {"onebit-lamb-table5", "whatif-bandwidth", "sdp4bit-table2", "aqsgd-table2"})
    CHECK(names.count(e) == 1);
  // Table form: the long descriptions wrap within 160 columns; --wide prints each on one line.
  const auto table = run_ccsim("list experiments");
  const auto wide  = run_ccsim("list experiments --wide");
  REQUIRE(table.exit_code == 0);
  REQUIRE(wide.exit_code == 0);
  std::size_t widest = 0, widest_wide = 0;
  for (const auto& [text, out] : {std::pair{&table.out, &widest}, std::pair{&wide.out, &widest_wide}}) {
    std::istringstream in(*text);
    for (std::string line; std::getline(in, line);)
      *out = std::max(*out, line.size());
  }
  CHECK(widest <= 160);
  CHECK(widest_wide > 160);
  // header, rule, one line each, and the blank line `list` ends every table with
  CHECK(line_count(wide.out) == static_cast<int>(names.size()) + 3);
}
