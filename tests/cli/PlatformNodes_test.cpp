// A platform of node slots through the whole command (sim/platform/Platform.hpp): a 405B step on 8,192 GPUs built on
// 256 nodes of 1,024 gives the answer of every node built; a step that touches more nodes than the slots runs again in
// a fresh child (api/process/Isolation.hpp, RunAgainFresh) and gives the same answer; --links names every node's own
// links; a bad CCSIM_PLATFORM_NODES is one line.
#include "tests/support/RunCcsim.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdlib>

using ccsim::test::line_count;
using ccsim::test::run_ccsim;

namespace {
/// The JSON document of `args` run with CCSIM_PLATFORM_NODES=`nodes` ("" : unset), wall-clock fields removed.
nlohmann::json simulated(const std::string& args, const char* nodes)
{
  if (*nodes != '\0')
    setenv("CCSIM_PLATFORM_NODES", nodes, 1);
  const auto r = run_ccsim(args + " --format json");
  unsetenv("CCSIM_PLATFORM_NODES");
  REQUIRE(r.exit_code == 0);
  auto doc = nlohmann::json::parse(r.out);
  doc["sim"].erase("wall_s");
  return doc;
}
} // namespace

TEST_CASE("ccsim simulate: node slots give every node's answer, through a second child where they run out", "[cli]")
{
  // 1,024 nodes; the step touches 79 of them (one stage's data-parallel rings reduced to one node, one pipeline group).
  const std::string llama = "simulate --topology h100x8-roce400x8 --workload llama3.1-405b --algorithm megatron-dp "
                            "--gpus 8192 --tp 8 --pp 16 --vpp 8 --micro-batch 1 --global-batch 2048";
  const auto every = simulated(llama, "all");
  CHECK(simulated(llama, "") == every); // 256 slots: every number, bytes and events alike
  CHECK(simulated(llama, "2") == every); // 2 slots: out of them, run again on every node
  CHECK(every["step_time_s"].get<double>() > 0);
  // --links reports links by node name: every node is built whatever the environment says.
  setenv("CCSIM_PLATFORM_NODES", "2", 1);
  const auto links = run_ccsim(llama + " --links --format json");
  unsetenv("CCSIM_PLATFORM_NODES");
  REQUIRE(links.exit_code == 0);
  CHECK(nlohmann::json::parse(links.out)["step_time_s"] == every["step_time_s"]);
}

TEST_CASE("ccsim: a bad CCSIM_PLATFORM_NODES is one line naming it, exit 2", "[cli]")
{
  for (const char* value : {"", "0", "-3", "ALL", "12x", "1e3", "99999999999"}) {
    INFO("CCSIM_PLATFORM_NODES='" << value << "'");
    setenv("CCSIM_PLATFORM_NODES", value, 1);
    const auto r = run_ccsim("simulate --topology a100x8-ib100 --workload bert-large --algorithm adam --gpus 16");
    unsetenv("CCSIM_PLATFORM_NODES");
    CHECK(r.exit_code == 2);
    CHECK(line_count(r.err) == 1);
    CHECK(r.err.find("CCSIM_PLATFORM_NODES") != std::string::npos);
  }
}
