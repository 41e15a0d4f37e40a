// The interval rule of api/run/Intervals.hpp on hand-made error tables, every half-width worked out by hand.
#include "api/run/Intervals.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace ccsim::api;

namespace {
ErrorRow row(const std::string& topology, double error_pct, const std::string& metric = "samples_per_s",
             double gbps = 10, int tp = 1, const std::string& label = "")
{
  ErrorRow r;
  r.regime    = {topology, "bert-large", "lamb", 64, tp, 1, gbps};
  r.table     = "t";
  r.label     = label.empty() ? std::to_string(error_pct) : label;
  r.metric    = metric;
  r.error_pct = error_pct;
  r.kind      = Holdout::LEAVE_ROW_OUT;
  return r;
}

Regime at(const std::string& topology, double gbps = 10, int tp = 1)
{
  return {topology, "bert-large", "lamb", 64, tp, 1, gbps};
}
} // namespace

TEST_CASE("Intervals: the base half-width is the conformal 80 percent quantile of the pool's errors", "[api]")
{
  PredictionErrors e;
  // |errors| 1..9 %: n = 9, rank ceil(0.8 x 10) = 8, so h = 8 %.
  for (const double x : {1.0, -2.0, 3.0, -4.0, 5.0, -6.0, 7.0, -8.0, 9.0})
    e.rows.push_back(row("c", x));
  const auto w = half_width(e, at("c"), MetricKind::THROUGHPUT);
  CHECK(w.h == Approx(0.08));
  CHECK_THAT(w.why, Catch::StartsWith("80 % of |error| over 9 throughput rows of lamb on c: 8.0 %"));
  // truth = p / (1 + e) with |e| <= h: [p / 1.08, p / 0.92] for the metric a table measured, [p 0.92, p 1.08] for
  // its reciprocal; the interval is their union, [p 0.92, p / 0.92].
  const auto iv = interval_around(100, w);
  CHECK(iv.low == Approx(100 * 0.92));
  CHECK(iv.high == Approx(100 / 0.92));
  // Leaving a row out (validate's coverage): n = 8, rank ceil(7.2) = 8: the largest left, 9 % without the 8 % row.
  const auto w8 = half_width(e, at("c"), MetricKind::THROUGHPUT, [](const ErrorRow& r) { return r.error_pct == -8; });
  CHECK(w8.h == Approx(0.09));
  // Small errors never give less than the 2 % floor.
  PredictionErrors tiny;
  for (int i = 0; i < 5; ++i)
    tiny.rows.push_back(row("c", 0.1));
  CHECK(half_width(tiny, at("c"), MetricKind::THROUGHPUT).h == Approx(0.02));
}

TEST_CASE("Intervals: each way out of the calibrated regime widens by its stated factor", "[api]")
{
  PredictionErrors e;
  for (const double x : {1.0, 2.0, 3.0, 4.0}) // n = 4: rank ceil(4) = 4, h = 4 %
    e.rows.push_back(row("c", x, "samples_per_s", 10));
  // A quarter of the lowest calibrated rate: x (1 + log2(4)) = x 3.
  CHECK(half_width(e, at("c", 2.5), MetricKind::THROUGHPUT).h == Approx(0.12));
  // Four times the highest: x (1 + 2 / 4) = x 1.5.
  CHECK(half_width(e, at("c", 40), MetricKind::THROUGHPUT).h == Approx(0.06));
  // A split no row has: x 1.5; with a quarter of the rate too: x 4.5.
  CHECK(half_width(e, at("c", 10, 4), MetricKind::THROUGHPUT).h == Approx(0.06));
  CHECK(half_width(e, at("c", 2.5, 4), MetricKind::THROUGHPUT).h == Approx(0.18));
  // A topology without calibration: the pool of every topology's rows, doubled.
  const auto other = half_width(e, at("elsewhere"), MetricKind::THROUGHPUT);
  CHECK(other.h == Approx(0.08));
  CHECK_THAT(other.why, Catch::Contains("elsewhere has no calibration"));
}

TEST_CASE("Intervals: communication metrics use communication rows - too few fall back to the topology's rows", "[api]")
{
  PredictionErrors e;
  for (const double x : {1.0, 2.0, 3.0, 4.0})
    e.rows.push_back(row("c", x));
  for (const double x : {10.0, 20.0, 30.0, 40.0})
    e.rows.push_back(row("c", x, "allreduce_ms"));
  CHECK(half_width(e, at("c"), MetricKind::COMMUNICATION).h == Approx(0.40));
  CHECK(half_width(e, at("c"), MetricKind::THROUGHPUT).h == Approx(0.04));
  e.rows.resize(6); // 2 communication rows left: the pool is every row of c (n = 6, rank ceil(5.6) = 6: 20 %)
  CHECK(half_width(e, at("c"), MetricKind::COMMUNICATION).h == Approx(0.20));
  CHECK(metric_kind("phase.compressed.allreduce_ms") == MetricKind::COMMUNICATION);
  CHECK(metric_kind("phase.fwd.pipeline_forward_comm_ms") == MetricKind::COMMUNICATION);
  CHECK(metric_kind("tflops_per_gpu") == MetricKind::THROUGHPUT);
}

TEST_CASE("Intervals: for a cluster with no calibration every calibrated topology weighs as one", "[api]")
{
  PredictionErrors e;
  // "a": 18 rows at 1 %, "b": 2 rows at 10 %. By rows, the 80 % quantile is 1 % (rank ceil(0.8 x 21) = 17 of 20).
  // Each topology weighing 1: a's rows 1/18 each, b's 1/2 each; cumulative weight reaches 0.8 x 2 = 1.6 only at b's
  // second row, so the base is 10 %, doubled for the missing calibration: 20 %.
  for (int i = 0; i < 18; ++i)
    e.rows.push_back(row("a", 1.0));
  e.rows.push_back(row("b", 10.0));
  e.rows.push_back(row("b", -10.0));
  const auto w = half_width(e, at("elsewhere"), MetricKind::THROUGHPUT);
  CHECK(w.h == Approx(0.20));
  CHECK_THAT(w.why, Catch::Contains("(by rows or by topology, the larger): 10.0 %"));
  // The other way round, the rows' quantile is the larger: "a" has 20 rows at 30 %, "b" to "e" 2 rows at 1 % each.
  // By rows: rank ceil(0.8 x 29) = 24 of 28 is one of a's, 30 %. By topology (5, target 0.8 x 5 = 4): the eight 1 %
  // rows weigh 1/2 each and reach 4 at the eighth, 1 %. The larger, 30 %, doubled: 60 %.
  PredictionErrors m;
  for (int i = 0; i < 20; ++i)
    m.rows.push_back(row("a", 30.0));
  for (const char* t : {"b", "c", "d", "e"})
    for (int i = 0; i < 2; ++i)
      m.rows.push_back(row(t, 1.0));
  CHECK(half_width(m, at("elsewhere"), MetricKind::THROUGHPUT).h == Approx(0.60));
  // A calibrated topology keeps its own rows' plain quantile: a's 18 rows at 1 % give the 2 % floor.
  CHECK(half_width(e, at("a"), MetricKind::THROUGHPUT).h == Approx(0.02));
}

TEST_CASE("Intervals: the run's own algorithm's rows on the topology come first, then every algorithm's", "[api]")
{
  PredictionErrors e;
  // lamb within 1 % on five rows, adam off by 10 % on five.
  for (int i = 0; i < 5; ++i) {
    e.rows.push_back(row("c", 1.0));
    e.rows.push_back(row("c", 10.0));
    e.rows.back().regime.algorithm = "adam";
  }
  // lamb: its own five rows, 1 % -> the 2 % floor; adam: rank ceil(0.8 x 6) = 5 of its five, 10 %.
  CHECK(half_width(e, at("c"), MetricKind::THROUGHPUT).h == Approx(0.02));
  Regime adam = at("c");
  adam.algorithm = "adam";
  CHECK(half_width(e, adam, MetricKind::THROUGHPUT).h == Approx(0.10));
  // An algorithm with no row there: all ten rows, rank ceil(0.8 x 11) = 9 -> 10 %, x 1.25 for the algorithm.
  Regime other = at("c");
  other.algorithm = "slamb";
  const auto w = half_width(e, other, MetricKind::THROUGHPUT);
  CHECK(w.h == Approx(0.125));
  CHECK_THAT(w.why, Catch::StartsWith("80 % of |error| over 10 throughput rows on c: 10.0 %"));
}

TEST_CASE("Intervals: step, samples/s and TFLOP/s are one interval seen three ways, its low end at the GPU's peak",
          "[api]")
{
  // Four throughput rows off by 50 % on c: n = 4, rank ceil(0.8 x 5) = 4, h = 0.5. The run: a step of 2 s on
  // batch 8 (4 samples/s) at 100 TFLOP/s per GPU, in c's regime (Regime of the rows above).
  PredictionErrors e;
  for (int i = 0; i < 4; ++i)
    e.rows.push_back(row("c", 50.0));
  SimulationReport r;
  r.step_time_s    = 2;
  r.samples_per_s  = 4;
  r.tflops_per_gpu = 100;
  r.config.topology = "c", r.config.workload = "bert-large", r.config.algorithm = "lamb";
  r.config.gpus = 64, r.config.tp = 1, r.config.pp = 1, r.config.inter_node_gbps = 10;
  // Without a peak: the step in [2 (1 - 0.5), 2 / (1 - 0.5)] = [1, 4] s; samples/s 8 / [4, 1] = [2, 8]; TFLOP/s
  // 100 x 2 / [4, 1] = [50, 200].
  const auto free = prediction_intervals(r, e);
  CHECK(free.at(Metric::STEP_TIME_S).low == Approx(1));
  CHECK(free.at(Metric::STEP_TIME_S).high == Approx(4));
  CHECK(free.at(Metric::SAMPLES_PER_S).low == Approx(2));
  CHECK(free.at(Metric::SAMPLES_PER_S).high == Approx(8));
  CHECK(free.at(Metric::TFLOPS_PER_GPU).low == Approx(50));
  CHECK(free.at(Metric::TFLOPS_PER_GPU).high == Approx(200));
  // A 125 TFLOP/s peak: the step's FLOPs (100 TFLOP/s x 2 s) take at least 200 / 125 = 1.6 s, so the step is in
  // [1.6, 4] s, samples/s in [2, 5] and TFLOP/s in [50, 125]: never above the peak.
  const auto bound = prediction_intervals(r, e, 125e12);
  CHECK(bound.at(Metric::STEP_TIME_S).low == Approx(1.6));
  CHECK(bound.at(Metric::STEP_TIME_S).high == Approx(4));
  CHECK(bound.at(Metric::SAMPLES_PER_S).high == Approx(5));
  CHECK(bound.at(Metric::TFLOPS_PER_GPU).high == Approx(125));
  CHECK(bound.at(Metric::TFLOPS_PER_GPU).low == Approx(50));
  CHECK_THAT(bound.at(Metric::STEP_TIME_S).why, Catch::Contains("dense peak of 125 TFLOP/s"));
  // A peak the range does not reach (1,000 TFLOP/s: 0.2 s) leaves it as it was.
  CHECK(prediction_intervals(r, e, 1000e12).at(Metric::STEP_TIME_S).low == Approx(1));
}
