// Experiment files without the simulator: expansion order, and the row arithmetic (speedup, scaling efficiency,
// error vs paper, median) on hand-made simulate documents standing in for the simulator (a fake), so every
// expected value is worked out by hand below.
#include "api/experiment/Experiment.hpp"
#include "api/experiment/ExperimentRows.hpp"
#include "io/JsonInput.hpp"
#include "tests/support/RunCcsim.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>

using ccsim::api::assemble_rows;
using ccsim::api::Metric;
using ccsim::api::load_experiment;
using ccsim::api::median_abs_error;
using ccsim::test::write_temp_file;

namespace {
/// A report as the simulator would give it, with the given throughput and allreduce.
ccsim::api::PointResult fake_doc(double samples_per_s, double allreduce_ms = 10.0)
{
  ccsim::api::SimulationReport r;
  r.samples_per_s  = samples_per_s;
  r.step_time_s    = 1.0;
  r.tflops_per_gpu = 1.0;
  r.breakdown      = {0.5, 0.4, 0.3, 0.1, 0.1, allreduce_ms};
  r.bytes_per_gpu  = {100.0, 200.0};
  ccsim::api::PhaseResult phase;
  phase.name        = "compressed";
  phase.fraction    = 1.0;
  phase.step_time_s = 1.0;
  r.phases.push_back(phase);
  r.fidelity = "fast";
  return {r, "", ""};
}

ccsim::api::PointResult failed(const std::string& why) { return {std::nullopt, why, "input"}; }

std::string expect_input_error(const std::string& text)
{
  const auto file = write_temp_file("bad.json", text);
  try {
    load_experiment(file);
  } catch (const ccsim::io::InputError& e) {
    return e.what();
  }
  FAIL("no InputError for " << text);
  return "";
}
} // namespace

TEST_CASE("Experiment: rows times axes expand in file order with the last axis fastest", "[api]")
{
  // 2 rows x 3 algorithms x 2 values of params.k = 12 points; point i = row (i / 6), algorithm ((i / 2) % 3),
  // k (i % 2).
  const auto file = write_temp_file("expand.json", R"({"base": {"topology": "t", "workload": "w", "gpus": 8},
    "rows": [{"label": "a", "gpus": 16}, {"label": "b", "bandwidth_gbps": 2.5}],
    "axes": {"algorithm": ["x", "y", "z"], "params.k": [0.1, 0.01]}})");
  const auto e = load_experiment(file);
  REQUIRE(e.points.size() == 12);
  CHECK(e.points[0].label == "a");
  CHECK(e.points[0].request.gpus == 16);
  CHECK(e.points[0].request.algorithm == "x");
  CHECK(e.points[1].axes["params.k"].get<double>() == Approx(0.01));
  CHECK(e.points[2].request.algorithm == "y");
  CHECK(e.points[5].request.algorithm == "z");
  CHECK(e.points[6].label == "b");
  CHECK(e.points[6].request.gpus == 8); // row b keeps the base's GPUs
  CHECK(e.points[6].axes["bandwidth_gbps"].get<double>() == Approx(2.5));
  CHECK(e.points[11].request.algorithm == "z");
  CHECK(e.points[11].request.params.at("k") == "0.01");
}

TEST_CASE("Experiment: a bad figure key or kind is a one-line error at its JSON path", "[api]")
{
  const std::string base = R"("base": {"topology": "t", "workload": "w", "algorithm": "a", "gpus": 8})";
  const auto bad_key     = expect_input_error("{" + base + R"(, "figure": {"kind": "scaling", "colour": "red"}})");
  CHECK(bad_key.find("/figure") != std::string::npos);
  CHECK(bad_key.find("colour") != std::string::npos);
  CHECK(bad_key.find('\n') == std::string::npos);
  const auto bad_kind = expect_input_error("{" + base + R"(, "figure": {"kind": "pie"}})");
  CHECK(bad_kind.find("/figure/kind") != std::string::npos);
  const auto bad_axis = expect_input_error("{" + base + R"(, "axes": {"gpus": []}})");
  CHECK(bad_axis.find("/axes/gpus: must be a non-empty array") != std::string::npos);
  const auto bad_metric = expect_input_error("{" + base + R"(, "rows": [{"paper": {"throughput": 3}}]})");
  CHECK(bad_metric.find("/rows/0/paper/throughput: unknown metric") != std::string::npos);
  // panels (one subplot per value of a field) is accepted
  const auto ok = write_temp_file("panels.json", "{" + base + R"(, "figure": {"kind": "scaling", "panels": "global_batch"}})");
  CHECK(load_experiment(ok).figure["panels"] == "global_batch");
}

TEST_CASE("Experiment: speedup and scaling efficiency from a fake simulator", "[api]")
{
  // points (algorithm, gpus): (adam,8) (adam,16) (adam,32) (onebit,8) (onebit,16) (onebit,32)
  const auto file = write_temp_file("arith.json", R"({"base": {"topology": "t", "workload": "w"},
    "axes": {"algorithm": ["adam", "onebit"], "gpus": [8, 16, 32]}, "baseline": {"algorithm": "adam"}})");
  const auto e    = load_experiment(file);
  const auto rows = assemble_rows(e, {fake_doc(800), fake_doc(1200), fake_doc(1600), fake_doc(1000), fake_doc(2000),
                                      fake_doc(3600)});
  REQUIRE(rows.size() == 6);
  // speedup = samples/s over adam at the same GPUs: 1000/800, 2000/1200, 3600/1600
  CHECK(rows[0].speedup->value == Approx(1.0));
  CHECK(rows[3].speedup->value == Approx(1.25));
  CHECK(rows[4].speedup->value == Approx(5.0 / 3.0));
  CHECK(rows[5].speedup->value == Approx(2.25));
  CHECK(rows[5].speedup->over == "adam");
  // efficiency = (samples/s / gpus) / (that of 8 GPUs): adam 100/s/GPU at 8 -> 75 at 16 (0.75), 50 at 32 (0.5);
  // onebit 125 at 8 -> 125 at 16 (1.0), 112.5 at 32 (0.9)
  CHECK(*rows[0].scaling_efficiency == Approx(1.0));
  CHECK(*rows[1].scaling_efficiency == Approx(0.75));
  CHECK(*rows[2].scaling_efficiency == Approx(0.5));
  CHECK(*rows[4].scaling_efficiency == Approx(1.0));
  CHECK(*rows[5].scaling_efficiency == Approx(0.9));
  // the breakdown and bytes are copied onto the row, and into its JSON by name
  CHECK(rows[5].metric(Metric::EXPOSED_COMM_S) == Approx(0.3));
  CHECK(rows[5].metric(Metric::INTER_NODE_BYTES) == Approx(100.0));
  CHECK(to_json(rows[5])["exposed_comm_s"].get<double>() == Approx(0.3));
}

TEST_CASE("Experiment: error_pct per paper metric and the median of its absolute values", "[api]")
{
  const auto file = write_temp_file("paper-fake.json", R"({"base": {"topology": "t", "workload": "w", "algorithm": "a"},
    "rows": [{"gpus": 8, "paper": {"allreduce_ms": 200}}, {"gpus": 16, "paper": {"allreduce_ms": 50}},
             {"gpus": 32, "paper": {"allreduce_ms": 100, "samples_per_s": 400}}]})");
  const auto e    = load_experiment(file);
  const auto rows = assemble_rows(e, {fake_doc(100, 190), fake_doc(200, 60), fake_doc(500, 103)});
  // 100 (190 - 200) / 200 = -5; 100 (60 - 50) / 50 = +20; 100 (103 - 100) / 100 = +3; 100 (500 - 400) / 400 = +25
  CHECK(rows[0].paper_value("allreduce_ms")->error_pct == Approx(-5.0));
  CHECK(rows[0].paper_value("allreduce_ms")->predicted == Approx(190.0));
  CHECK(rows[0].paper_value("allreduce_ms")->paper == Approx(200.0));
  CHECK(rows[1].paper_value("allreduce_ms")->error_pct == Approx(20.0));
  CHECK(rows[2].paper_value("allreduce_ms")->error_pct == Approx(3.0));
  CHECK(rows[2].paper_value("samples_per_s")->error_pct == Approx(25.0));
  CHECK(rows[0].paper_value("samples_per_s") == nullptr);
  CHECK(ccsim::api::paper_value_count(rows) == 4);
  // |errors| sorted 3, 5, 20, 25 -> median (5 + 20) / 2 = 12.5
  CHECK(median_abs_error(rows) == Approx(12.5));
  // without the last row: 5, 20 -> 12.5 too; with only the first: 5
  CHECK(median_abs_error({rows[0]}) == Approx(5.0));
  CHECK(std::isnan(median_abs_error({})));
}

TEST_CASE("Experiment: a failed point keeps its row with the error and no speedup", "[api]")
{
  const auto file = write_temp_file("fail.json", R"({"base": {"topology": "t", "workload": "w", "gpus": 8},
    "axes": {"algorithm": ["adam", "onebit"]}, "baseline": {"algorithm": "adam"}})");
  const auto e    = load_experiment(file);
  const auto rows = assemble_rows(e, {fake_doc(800), failed("plan rejected")});
  CHECK(rows[1].error == "plan rejected");
  CHECK(rows[1].status() == ccsim::api::RowStatus::NOT_RUN);
  CHECK(rows[0].status() == ccsim::api::RowStatus::RAN);
  auto oom        = rows[0];
  oom.fits_memory = ccsim::api::MemoryVerdict::DOES_NOT_FIT; // ran under --allow-oom
  CHECK(oom.status() == ccsim::api::RowStatus::RAN_OUT_OF_MEMORY);
  CHECK_FALSE(rows[1].speedup);
  const auto doc = to_json(rows[1]);
  CHECK(doc["error"] == "plan rejected");
  CHECK_FALSE(doc.contains("samples_per_s"));
  CHECK_FALSE(doc.contains("speedup"));
}

TEST_CASE("ExperimentRow: a row read back from its JSON writes the same JSON, failed rows too", "[api]")
{
  const auto file = write_temp_file("roundtrip.json", R"({"base": {"topology": "t", "workload": "w", "gpus": 8},
    "axes": {"algorithm": ["adam", "onebit"], "params.k": [0.5]}, "baseline": {"algorithm": "adam"},
    "rows": [{"label": "r", "paper": {"allreduce_ms": 8, "phase.warmup.step_time_s": 2}}]})");
  const auto e    = load_experiment(file);
  const auto rows = assemble_rows(e, {fake_doc(800), failed("plan rejected")});
  for (const auto& row : rows) {
    const auto text  = ccsim::io::dump_json(to_json(row), 2);
    const auto again = ccsim::api::experiment_row_from_json(nlohmann::json::parse(text));
    CHECK(ccsim::io::dump_json(to_json(again), 2) == text);
    CHECK(again.axes == row.axes);
    CHECK(again.label == "r");
  }
  // The paper's phase has no such phase in the report: the prediction is NaN, written as null, read back as NaN.
  const auto again = ccsim::api::experiment_row_from_json(to_json(rows[0]));
  REQUIRE(again.paper.size() == 2);
  CHECK(again.paper[0].metric == "allreduce_ms");
  CHECK(again.paper[0].error_pct == Approx(25.0)); // 100 (10 - 8) / 8
  CHECK(std::isnan(again.paper[1].predicted));
  CHECK(again.speedup->over == "adam");
  CHECK(again.axes["params.k"] == 0.5);
  CHECK(again.fits_memory == rows[0].fits_memory);
  CHECK(again.error == std::nullopt);
  CHECK(ccsim::api::experiment_row_from_json(to_json(rows[1])).error == "plan rejected");
}

TEST_CASE("ExperimentRow: a damaged row is refused naming the field", "[api]")
{
  const auto file = write_temp_file("damaged.json", R"({"base": {"topology": "t", "workload": "w", "gpus": 8,
    "algorithm": "adam"}})");
  const auto rows = assemble_rows(load_experiment(file), {fake_doc(800)});
  auto doc        = to_json(rows[0]);
  doc.erase("exposed_comm_s");
  CHECK_THROWS_WITH(ccsim::api::experiment_row_from_json(doc), Catch::Contains("/exposed_comm_s: missing"));
  doc                = to_json(rows[0]);
  doc["fits_memory"] = "maybe";
  CHECK_THROWS_WITH(ccsim::api::experiment_row_from_json(doc), Catch::Contains("/fits_memory: not a memory verdict"));
  doc                                = to_json(rows[0]);
  doc["intervals"]["throughput"]     = {{"low", 1}, {"high", 2}};
  CHECK_THROWS_WITH(ccsim::api::experiment_row_from_json(doc), Catch::Contains("/intervals/throughput: not a metric"));
}

TEST_CASE("Experiment: error bounds - the table's default, a row's own, and each one's reason required", "[api]")
{
  const std::string base = R"("base": {"topology": "t", "workload": "w", "algorithm": "a", "gpus": 8})";
  // Row 0 takes the table's 6 % on both its values; row 1 has 40 % of its own on allreduce_ms, the default on the rest.
  const auto file = write_temp_file("bounds.json", "{" + base + R"(, "error_bound": {"pct": 6, "reason": "3 x median"},
    "rows": [{"paper": {"allreduce_ms": 100, "samples_per_s": 50}},
             {"error_bound": {"allreduce_ms": {"pct": 40, "reason": "a known miss"}},
              "paper": {"allreduce_ms": 100, "samples_per_s": 50}}]})");
  const auto e = load_experiment(file);
  REQUIRE(e.points.size() == 2);
  CHECK(e.points[0].error_bound_pct.at("allreduce_ms") == 6);
  CHECK(e.points[0].error_bound_pct.at("samples_per_s") == 6);
  CHECK(e.points[1].error_bound_pct.at("allreduce_ms") == 40);
  CHECK(e.points[1].error_bound_pct.at("samples_per_s") == 6);
  // The bound travels with the row into results.json and back.
  const auto rows = assemble_rows(e, {fake_doc(50, 110), fake_doc(50, 130)});
  const auto doc  = to_json(rows[1]);
  CHECK(doc["error_bound_pct"]["allreduce_ms"].get<double>() == 40);
  CHECK(ccsim::api::experiment_row_from_json(doc).paper_value("allreduce_ms")->bound_pct == 40);
  // A bound without its reason, or on a value the row does not have, is a one-line error at its path.
  const auto no_reason = expect_input_error("{" + base + R"(, "error_bound": {"pct": 6, "reason": ""}})");
  CHECK(no_reason.find("/error_bound/reason: must say why") != std::string::npos);
  const auto stray = expect_input_error("{" + base + R"(, "rows": [{"paper": {"allreduce_ms": 1},
    "error_bound": {"samples_per_s": {"pct": 5, "reason": "r"}}}]})");
  CHECK(stray.find("/rows/0/error_bound/samples_per_s: bounds the error of a paper value this row does not have") !=
        std::string::npos);
  CHECK(stray.find('\n') == std::string::npos);
}
