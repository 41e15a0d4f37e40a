// The metric table of api/run/Metrics.hpp is the one declaration of a metric: every metric in it must reach each place
// that lists metrics without a line of its own there. The report below gives every field a different value, so a
// metric read from the wrong field, or left out of a serialisation, fails here; a metric added to the table is checked
// by these same loops.
#include "api/experiment/Experiment.hpp"
#include "api/experiment/ExperimentRows.hpp"
#include "api/experiment/ResultsCsv.hpp"
#include "api/run/Intervals.hpp"
#include "api/run/Metrics.hpp"
#include "api/run/ReportJson.hpp"
#include "api/output/Table.hpp"
#include "tests/support/RunCcsim.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <set>
#include <sstream>

using namespace ccsim::api;

namespace {
/// Every number of the report different from every other: 1, 2, 3, ... in field order (the phase repeats the run's
/// values, as a one-phase run does).
SimulationReport distinct_report()
{
  SimulationReport r;
  r.samples_per_s    = 1;
  r.step_time_s      = 2;
  r.tflops_per_gpu   = 3;
  r.breakdown        = {4, 5, 6, 7, 8, 9};
  r.bytes_per_gpu    = {10, 11};
  r.straggler_wait_s = 12;
  PhaseResult phase{"compressed", 1.0, r.step_time_s, r.samples_per_s, r.breakdown, 13, 14, r.bytes_per_gpu};
  r.phases.push_back(phase);
  r.memory.fit = judge_memory(15e9, 16e9, 20e9);
  r.fidelity   = "fast";
  r.config.seq_len = 2048; // tokens/s 2048, per GPU 512, days per 1e12 tokens 5651.3...
  r.config.gpus    = 4;
  return r;
}

std::string experiment_comparing_every_metric()
{
  nlohmann::json paper = nlohmann::json::object();
  for (const auto& m : metric_table())
    paper[m.name] = 100; // any positive value: the loader must accept every name of the table
  const nlohmann::json doc = {{"base", {{"topology", "t"}, {"workload", "w"}, {"algorithm", "a"}, {"gpus", 8}}},
                              {"rows", {{{"paper", paper}}}}};
  return ccsim::test::write_temp_file("every-metric.json", doc.dump());
}
} // namespace

TEST_CASE("Metrics: the table lists each metric once, in enum order, with distinct names", "[api]")
{
  std::set<std::string> names, labels;
  for (std::size_t i = 0; i < metric_table().size(); ++i) {
    const auto& m = metric_table()[i];
    CHECK(static_cast<std::size_t>(m.metric) == i);
    CHECK(names.insert(m.name).second);
    CHECK(labels.insert(m.label).second);
    CHECK(metric_named(m.name) == m.metric);
    CHECK(metric_kind(m.name) == m.kind);
    CHECK(known_metrics()[i] == m.name);
  }
  CHECK_FALSE(metric_named("throughput"));
  CHECK_FALSE(metric_kind("throughput"));
}

TEST_CASE("Metrics: every metric of the table reads its own field and survives the report's JSON", "[api]")
{
  const auto report = distinct_report();
  const auto again  = report_from_json(to_json(report));
  std::set<double> values;
  for (const auto& m : metric_table()) {
    const double v = metric_value(report, m.metric);
    values.insert(v);
    CHECK(metric_value(report, std::string(m.name)) == v);
    CHECK(metric_value(again, m.metric) == v); // serialised and read back, by to_json and report_from_json
    if (const auto p = phase_metric_value(report.phases[0], m.metric)) {
      CHECK(*p == v); // the phase repeats the run's values
      CHECK(metric_value(report, "phase.compressed." + std::string(m.name)) == v);
      CHECK(metric_kind("phase.compressed." + std::string(m.name)) == m.kind);
    } else {
      CHECK_THROWS_AS(metric_value(report, "phase.compressed." + std::string(m.name)), std::out_of_range);
      CHECK_FALSE(metric_kind("phase.compressed." + std::string(m.name))); // an experiment may not name it
    }
  }
  CHECK(values.size() == kMetricCount); // no two metrics read the same field
  // What phases alone have, by name: 13 and 14 ms per micro-batch of pipeline sends, and the phase's share.
  CHECK(metric_value(report, "phase.compressed.pipeline_forward_comm_ms") == 13);
  CHECK(metric_value(report, "phase.compressed.pipeline_backward_comm_ms") == 14);
  CHECK(metric_value(report, "phase.compressed.fraction") == 1);
  CHECK(metric_kind("phase.compressed.pipeline_forward_comm_ms") == MetricKind::COMMUNICATION);
  CHECK_THROWS_AS(metric_value(report, "phase.warmup.step_time_s"), std::out_of_range);
}

TEST_CASE("Metrics: every metric of the table is a results column and a metric a paper value may name", "[api]")
{
  const auto e = load_experiment(experiment_comparing_every_metric());
  REQUIRE(e.points.size() == 1);
  const auto report = distinct_report();
  const auto rows   = assemble_rows(e, {PointResult{report, "", ""}});
  const auto doc    = to_json(rows[0]);
  const auto back   = experiment_row_from_json(doc);
  std::istringstream csv(results_csv(rows));
  std::string header, line;
  std::getline(csv, header);
  std::getline(csv, line);
  auto cells_of = [](const std::string& text) {
    std::vector<std::string> out;
    std::stringstream s(text);
    for (std::string c; std::getline(s, c, ',');)
      out.push_back(c);
    if (!text.empty() && text.back() == ',')
      out.emplace_back(); // the last column (error) is empty
    return out;
  };
  const auto headers = cells_of(header), cells = cells_of(line);
  REQUIRE(headers.size() == cells.size());
  for (const auto& m : metric_table()) {
    const double v = metric_value(report, m.metric);
    CHECK(rows[0].metric(m.metric) == v);
    CHECK(doc.at(m.name).get<double>() == v);
    CHECK(back.metric(m.metric) == v);
    const auto col = std::find(headers.begin(), headers.end(), m.name);
    REQUIRE(col != headers.end());
    CHECK(cells[static_cast<std::size_t>(col - headers.begin())] == format_number(v, 6));
    // the paper's 100 beside the prediction: error 100 (v - 100) / 100 = v - 100
    const PaperValue* p = rows[0].paper_value(m.name);
    REQUIRE(p != nullptr);
    CHECK(p->predicted == v);
    CHECK(p->error_pct == Approx(v - 100));
    CHECK(std::find(headers.begin(), headers.end(), "error_pct_" + std::string(m.name)) != headers.end());
  }
}

TEST_CASE("Metrics: a simulation puts a likely range on the metrics the table says, each from its kind's width",
          "[api]")
{
  // No error rows: every half-width is the cap, 0.9, so each interval is [v (1 - 0.9), v / (1 - 0.9)] = [0.1 v, 10 v]
  // (Intervals.hpp); no peak is given, so nothing bounds the step's low end.
  const PredictionErrors none;
  auto report                   = distinct_report();
  const auto intervals          = prediction_intervals(report, none);
  for (const auto& m : metric_table()) {
    const double v    = metric_value(report, m.metric);
    const bool wanted = m.interval == IntervalRule::ALWAYS || (m.interval == IntervalRule::WHEN_POSITIVE && v > 0);
    REQUIRE(intervals.count(m.metric) == (wanted ? 1u : 0u));
    if (wanted) {
      CHECK(intervals.at(m.metric).low == Approx(v * 0.1));
      CHECK(intervals.at(m.metric).high == Approx(v / 0.1));
    }
  }
  // A step without a gradient synchronisation has no allreduce_ms to bound.
  report.breakdown.allreduce_ms = 0;
  CHECK(prediction_intervals(report, none).count(Metric::ALLREDUCE_MS) == 0);
  // The CSV has a low and a high column for each metric that can have a range, whether or not this row has one.
  std::vector<std::string> bounded;
  for (const auto& m : metric_table())
    if (m.interval != IntervalRule::NONE)
      bounded.push_back(m.name);
  CHECK(bounded == std::vector<std::string>{"samples_per_s", "step_time_s", "tflops_per_gpu", "allreduce_ms"});
}

TEST_CASE("Metrics: tokens per second, per GPU and days per trillion tokens follow from samples and the sequence", "[api]")
{
  // 3 samples/s of 4,096 tokens on 8 GPUs: 12,288 tokens/s, 1,536 per GPU; 1e12 tokens take 1e12 / 12,288 s
  // = 81,380,208.3 s = 941.90 days.
  SimulationReport r;
  r.samples_per_s  = 3;
  r.config.seq_len = 4096;
  r.config.gpus    = 8;
  CHECK(metric_value(r, Metric::TOKENS_PER_S) == Approx(12288));
  CHECK(metric_value(r, Metric::TOKENS_PER_S_PER_GPU) == Approx(1536));
  CHECK(metric_value(r, Metric::DAYS_PER_TRILLION_TOKENS) == Approx(1e12 / 12288 / 86400).epsilon(1e-12));
  CHECK(metric_value(r, Metric::DAYS_PER_TRILLION_TOKENS) == Approx(941.90).epsilon(1e-4));
}
