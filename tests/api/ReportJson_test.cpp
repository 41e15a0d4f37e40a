// The report's one serialisation: what a simulation child sends, a results log keeps and `simulate --format json`
// prints is read back into the same report, and a damaged document is refused naming its field.
#include "api/run/ReportJson.hpp"
#include "api/run/Simulation.hpp"
#include "io/JsonInput.hpp"

#include <catch2/catch.hpp>

using namespace ccsim::api;

namespace {
SimulationReport simulated(bool extras)
{
  SimulateRequest req;
  req.topology       = "a100x8-ib100";
  req.workload       = "bert-large";
  req.algorithm      = "onebit-adam"; // two phases
  req.gpus           = 16;
  req.links          = extras;
  req.straggler_cv   = extras ? 0.1 : 0;
  req.slow_gpus      = extras ? std::map<int, double>{{3, 0.5}} : std::map<int, double>{};
  req.trace          = extras;
  return run_simulation_isolated(req);
}
} // namespace

TEST_CASE("ReportJson: a report read back from its JSON writes the same JSON, byte for byte", "[api]")
{
  for (const bool extras : {false, true}) {
    const auto report = simulated(extras);
    const auto text   = ccsim::io::dump_json(to_json(report), 2);
    const auto again  = report_from_json(nlohmann::json::parse(text));
    CHECK(ccsim::io::dump_json(to_json(again), 2) == text);
    // typed fields carry the values: two phases of 1-bit Adam, weighted by their share of the steps
    REQUIRE(again.phases.size() == 2);
    CHECK(again.phases[0].name == "warmup");
    CHECK(again.step_time_s == Approx(again.phases[0].fraction * again.phases[0].step_time_s +
                                      again.phases[1].fraction * again.phases[1].step_time_s));
    CHECK(again.samples_per_s == Approx(static_cast<double>(again.config.global_batch) / again.step_time_s));
    CHECK(again.config.stragglers.has_value() == extras);
    CHECK(again.links.has_value() == extras);
    CHECK(again.trace.has_value() == extras);
    CHECK(again.ranks_idle_s.has_value() == extras);
  }
}

TEST_CASE("ReportJson: a document missing a field or of the wrong type is refused, naming it", "[api]")
{
  const auto doc = to_json(simulated(false));
  auto missing   = doc;
  missing["config"].erase("dp");
  CHECK_THROWS_WITH(report_from_json(missing), Catch::Contains("/config/dp: missing"));
  auto mistyped                  = doc;
  mistyped["phases"][1]["name"] = 3;
  CHECK_THROWS_WITH(report_from_json(mistyped), Catch::Contains("name: not a string"));
  auto bad_number                   = doc;
  bad_number["breakdown"]["comm_s"] = "fast";
  CHECK_THROWS_WITH(report_from_json(bad_number), Catch::Contains("/breakdown/comm_s: not a number"));
  CHECK_THROWS_AS(report_from_json(nlohmann::json::array()), std::invalid_argument);
}

TEST_CASE("ReportJson: a mixture of experts' model section and expert-parallel degree read back byte for byte", "[api]")
{
  SimulateRequest req;
  req.topology  = "h800x8-ib400x8";
  req.workload  = "mixtral-8x7b";
  req.algorithm = "megatron-dp";
  req.gpus      = 64;
  const auto report = run_simulation_isolated(req);
  const auto text   = ccsim::io::dump_json(to_json(report), 2);
  const auto again  = report_from_json(nlohmann::json::parse(text));
  CHECK(ccsim::io::dump_json(to_json(again), 2) == text);
  REQUIRE(again.model);
  CHECK(again.model->params == 46702792704u);
  CHECK(again.model->active_params == 12879925248u);
  CHECK(again.config.ep == 8);
  // The papers' workloads have neither.
  CHECK_FALSE(simulated(false).model);
}
