// The configuration hash --resume matches results by, and the progress line's format.
#include "api/experiment/ConfigHash.hpp"
#include "cli/Progress.hpp"
#include "tests/support/RunCcsim.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

using namespace ccsim;

TEST_CASE("ConfigHash: FNV-1a 64 matches the reference test vectors", "[cli]")
{
  // Fowler/Noll/Vo's published vectors for FNV-1a 64 (isthe.com/chongo/src/fnv/test_fnv.c).
  CHECK(api::fnv1a64("") == 0xcbf29ce484222325ull);
  CHECK(api::fnv1a64("a") == 0xaf63dc4c8601ec8cull);
  CHECK(api::fnv1a64("foobar") == 0x85944171f73967e8ull);
}

TEST_CASE("ConfigHash: equal requests hash equal and any field or the preset file's bytes change it", "[cli]")
{
  api::SimulateRequest a;
  a.topology  = test::write_temp_file("hash-topology.json", R"({"name": "t"})");
  a.workload  = "bert-large";
  a.algorithm = "onebit-lamb";
  a.gpus      = 64;
  const auto base = api::config_hash(a);
  CHECK(base.size() == 16);
  CHECK(api::config_hash(a) == base);

  auto b = a;
  b.gpus = 128;
  CHECK(api::config_hash(b) != base);
  b = a;
  b.params["k"] = "0.1";
  CHECK(api::config_hash(b) != base);
  b = a;
  b.bandwidth_gbps = 100;
  CHECK(api::config_hash(b) != base);
  b = a;
  b.fidelity = "exact";
  CHECK(api::config_hash(b) != base);
  // --tp-overlap enters only when given (a result stored before the option keeps its hash); on and off differ.
  b            = a;
  b.tp_overlap = true;
  const auto on = api::config_hash(b);
  CHECK(on != base);
  b.tp_overlap = false;
  CHECK(api::config_hash(b) != on);
  CHECK(api::config_hash(b) != base);
  CHECK(!api::resolved_request(a).contains("tp_overlap"));

  // The hash covers what the name points at: the same name, edited file content, a different hash. (The content is
  // read once per name in a process, as one run of an experiment sees it; a second file stands for the edit here.)
  b          = a;
  b.topology = test::write_temp_file("hash-topology-edited.json", R"({"name": "t", "edited": 1})");
  const auto edited = api::resolved_request(b)["topology"]["content_fnv1a64"];
  CHECK(edited != api::resolved_request(a)["topology"]["content_fnv1a64"]);
  CHECK(edited == fmt::format("{:016x}", api::fnv1a64(R"({"name": "t", "edited": 1})")));
}

TEST_CASE("Progress: what and done/total with percent and note and rate and elapsed and ETA in one line", "[cli]")
{
  const cli::Progress p("ccsim experiment", true);
  const std::string line = p.line("sweep", 3, 12, "points", 1, "2 running");
  CHECK(line.rfind("ccsim experiment: sweep: 3/12 points (25.0 %), 2 running, ", 0) == 0);
  CHECK(line.find(" points/s, ") != std::string::npos);
  CHECK(line.find(", ETA ") != std::string::npos);
  CHECK(cli::format_duration(45) == "45 s");
  CHECK(cli::format_duration(725) == "12 min 5 s");
  CHECK(cli::format_duration(12000) == "3 h 20 min");
  CHECK(cli::format_duration(2339.6) == "39 min 0 s"); // rounded before it is split: never "38 min 60 s"
  CHECK(cli::format_count(7.5) == "7.50");
  CHECK(cli::format_count(1234) == "1234");
  CHECK(cli::format_count(61234) == "61.2k");
  CHECK(cli::format_count(5e6) == "5.00M");
}
