// The command-line contract common to every subcommand: help, --format, one-line errors with exit code 2.
#include "tests/support/RunCcsim.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

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
  CHECK(r.err == "ccsim: --format: 'xml' is not one of: table, json\n");
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
