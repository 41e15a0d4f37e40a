// Prediction intervals from out-of-sample errors; the rule is in Intervals.hpp.
#include "api/run/Intervals.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ccsim::api {

namespace {
constexpr double kCoverage  = 0.8;  // the share of new rows the interval should hold
constexpr double kFloor     = 0.02; // no calibration is better than 2 %: the papers print 2-3 significant digits
constexpr double kCap       = 0.9;  // keeps p / (1 - h) finite
constexpr std::size_t kMinPool = 3;

std::string gbps_text(double gbps)
{
  return gbps >= 1 ? fmt::format("{:.3g} Gbit/s", gbps) : fmt::format("{:.3g} Mbit/s", gbps * 1e3);
}

/// The split-conformal quantile: the ceil(coverage (n + 1))-th smallest |error| (the largest when that runs past n).
double conformal_quantile(std::vector<double> abs_errors)
{
  std::sort(abs_errors.begin(), abs_errors.end());
  const auto n    = abs_errors.size();
  const auto rank = static_cast<std::size_t>(std::ceil(kCoverage * static_cast<double>(n + 1)));
  return abs_errors[std::min(n, std::max<std::size_t>(rank, 1)) - 1];
}

/// The same quantile with every topology weighing as one, however many rows its tables have: for a cluster with no
/// calibration, no one calibrated cluster should set the width (AQ-SGD's 49 values, most of them compute-bound and
/// within 1 %, would otherwise narrow it). Each topology's rows share a weight of 1; the pooled errors are sorted and
/// the first whose cumulative weight reaches coverage x topologies is taken: the weighted 80 % quantile.
double topology_weighted_quantile(const std::vector<const ErrorRow*>& pool)
{
  std::map<std::string, std::size_t> per_topology;
  for (const auto* e : pool)
    ++per_topology[e->regime.topology];
  std::vector<std::pair<double, double>> weighted; // |error|, weight
  for (const auto* e : pool)
    weighted.emplace_back(std::abs(e->error_pct) / 100, 1.0 / static_cast<double>(per_topology[e->regime.topology]));
  std::sort(weighted.begin(), weighted.end());
  const double target = kCoverage * static_cast<double>(per_topology.size());
  double cumulative   = 0;
  for (const auto& [error, weight] : weighted) {
    cumulative += weight;
    if (cumulative >= target - 1e-12)
      return error;
  }
  return weighted.back().first;
}
} // namespace

HalfWidth half_width(const PredictionErrors& errors, const Regime& r, MetricKind kind,
                     const std::function<bool(const ErrorRow&)>& skip)
{
  auto usable = [&](const ErrorRow& e) { return std::isfinite(e.error_pct) && !(skip && skip(e)); };
  std::vector<const ErrorRow*> pool;
  // The usable rows `keep` accepts; whether there are enough of them to stand for a regime.
  auto collect = [&](auto keep) {
    pool.clear();
    for (const auto& e : errors.rows)
      if (usable(e) && keep(e))
        pool.push_back(&e);
    return pool.size() >= kMinPool;
  };
  auto here      = [&](const ErrorRow& e) { return e.regime.topology == r.topology; };
  auto same_kind = [&](const ErrorRow& e) { return metric_kind(e.metric) == kind; }; // an unknown name: no kind
  auto same_alg  = [&](const ErrorRow& e) { return e.regime.algorithm == r.algorithm; };
  const char* kind_name = kind == MetricKind::THROUGHPUT ? "throughput" : "communication";
  std::string scope;
  bool calibrated = true;
  // The nearest regime first: the same algorithm on the topology (an uncompressed baseline and its compressed rivals
  // miss by different amounts: AQ-SGD's FP32 rows by 1-6 %, its compressed ones by under 1 %).
  if (collect([&](const ErrorRow& e) { return here(e) && same_alg(e) && same_kind(e); }))
    scope = fmt::format("{} {} rows of {} on {}", pool.size(), kind_name, r.algorithm, r.topology);
  else if (collect([&](const ErrorRow& e) { return here(e) && same_kind(e); }))
    scope = fmt::format("{} {} rows on {}", pool.size(), kind_name, r.topology);
  else if (collect(here))
    scope = fmt::format("{} rows on {}", pool.size(), r.topology);
  else {
    // No calibration here: the run's algorithm on every calibrated topology first, as on a calibrated one, so that a
    // cluster nobody calibrated is never given a narrower range than a calibrated one for the same algorithm.
    calibrated = false;
    if (collect([&](const ErrorRow& e) { return same_alg(e) && same_kind(e); }))
      scope = fmt::format("{} {} rows of {} on every calibrated topology", pool.size(), kind_name, r.algorithm);
    else {
      collect(same_kind); // whatever it holds: the widest pool there is
      scope = fmt::format("{} rows of every calibrated topology", pool.size());
    }
  }
  if (pool.empty())
    return {kCap, "no out-of-sample error to go by"};

  std::vector<double> abs_errors;
  double lowest = INFINITY, highest = 0;
  int fewest = 1 << 30, most = 0;
  std::set<std::pair<int, int>> splits;
  std::set<std::string> workloads, algorithms;
  for (const auto* e : pool) {
    abs_errors.push_back(std::abs(e->error_pct) / 100);
    lowest  = std::min(lowest, e->regime.inter_node_gbps);
    highest = std::max(highest, e->regime.inter_node_gbps);
    fewest  = std::min(fewest, e->regime.gpus);
    most    = std::max(most, e->regime.gpus);
    splits.insert({e->regime.tp, e->regime.pp});
    workloads.insert(e->regime.workload);
    algorithms.insert(e->regime.algorithm);
  }
  // Without calibration, the larger of the rows' quantile and the topologies' (each weighing as one): neither one
  // topology's many accurate rows nor a few topologies' outliers may make an unknown cluster's range the narrower.
  const double rows_q = conformal_quantile(abs_errors);
  const double base   = std::max(kFloor, calibrated ? rows_q : std::max(rows_q, topology_weighted_quantile(pool)));
  double h            = base;
  std::string why     = fmt::format("80 % of |error| over {}{}: {:.1f} %", scope,
                                    calibrated ? "" : " (by rows or by topology, the larger)", 100 * base);
  auto widen        = [&](double factor, const std::string& reason) {
    h *= factor;
    why += fmt::format("; x{:.2f}, {}", factor, reason);
  };
  if (!calibrated)
    widen(2.0, fmt::format("{} has no calibration", r.topology));
  constexpr double kSame = 0.02; // a rate within 2 % of a calibrated one is that rate (2 x 90.22 Gbit/s vs 180)
  if (r.inter_node_gbps < lowest * (1 - kSame))
    // One unit per halving: a slower link moves a run towards communication-bound, where the calibrated rows say
    // least; AQ-SGD's FP32 rows at 300 Mbit/s, below the then calibrated 500, came out 18-22 % off before issue 32's
    // shaper, and two shapers that fit every visible row part by 6 % at 100 Mbit/s.
    widen(1 + std::log2(lowest / r.inter_node_gbps),
          fmt::format("inter-node rate {} below the lowest calibrated {}", gbps_text(r.inter_node_gbps), gbps_text(lowest)));
  else if (r.inter_node_gbps > highest * (1 + kSame))
    widen(1 + std::log2(r.inter_node_gbps / highest) / 4,
          fmt::format("inter-node rate {} above the highest calibrated {}", gbps_text(r.inter_node_gbps),
                      gbps_text(highest)));
  if (r.gpus > most)
    widen(1 + std::log2(static_cast<double>(r.gpus) / most) / 4,
          fmt::format("{} GPUs beyond the calibrated {}", r.gpus, most));
  else if (r.gpus < fewest)
    widen(1 + std::log2(static_cast<double>(fewest) / r.gpus) / 4,
          fmt::format("{} GPUs below the calibrated {}", r.gpus, fewest));
  if (splits.count({r.tp, r.pp}) == 0)
    widen(1.5, fmt::format("a tp {} x pp {} split no calibration row has", r.tp, r.pp));
  if (workloads.count(r.workload) == 0)
    widen(1.25, fmt::format("workload {} not calibrated here", r.workload));
  if (algorithms.count(r.algorithm) == 0)
    widen(1.25, fmt::format("algorithm {} not calibrated here", r.algorithm));
  if (h > kCap) {
    h = kCap;
    why += fmt::format("; capped at {:.0f} %", 100 * kCap);
  }
  return {h, why};
}

Interval interval_around(double prediction, const HalfWidth& width)
{
  return {prediction * (1 - width.h), prediction / (1 - width.h), width.why};
}

Regime regime_of(const SimulationReport& report)
{
  const auto& c = report.config;
  return {c.topology, c.workload, c.algorithm, c.gpus, c.tp, c.pp, c.inter_node_gbps};
}

namespace {
/// How a throughput metric follows the step: the step itself, or a rate of it (samples/s = batch / step, TFLOP/s =
/// FLOPs / step / GPUs), whose interval is the step's seen through p x step / t.
bool is_rate_of_step(Metric m) { return m == Metric::SAMPLES_PER_S || m == Metric::TFLOPS_PER_GPU; }
} // namespace

std::map<Metric, Interval> prediction_intervals(const SimulationReport& report, const PredictionErrors& errors,
                                                double peak_flops_per_gpu)
{
  const Regime regime = regime_of(report);
  std::map<MetricKind, HalfWidth> widths; // one per kind, made when a metric of the kind first needs it
  auto width_of = [&](MetricKind kind) -> const HalfWidth& {
    auto width = widths.find(kind);
    if (width == widths.end())
      width = widths.emplace(kind, half_width(errors, regime, kind)).first;
    return width->second;
  };
  // The step's interval, the one the throughput metrics are views of; its low end no shorter than the step's FLOPs
  // take at the GPU's dense peak (TFLOP/s per GPU never above that peak).
  const double step = report.step_time_s;
  Interval step_range = interval_around(step, width_of(MetricKind::THROUGHPUT));
  if (peak_flops_per_gpu > 0 && report.tflops_per_gpu > 0 && step > 0) {
    const double at_peak = step * report.tflops_per_gpu * 1e12 / peak_flops_per_gpu;
    if (step_range.low < at_peak) {
      // A prediction above the peak would be a bug of the compute model; the range still holds the prediction.
      step_range.low = std::min(step, at_peak);
      step_range.why += fmt::format("; shortest step: its FLOPs at the GPU's dense peak of {:.0f} TFLOP/s",
                                    peak_flops_per_gpu / 1e12);
    }
  }
  std::map<Metric, Interval> out;
  for (const auto& m : metric_table()) {
    const double value = metric_value(report, m.metric);
    if (m.interval == IntervalRule::NONE || (m.interval == IntervalRule::WHEN_POSITIVE && !(value > 0)))
      continue;
    if (m.metric == Metric::STEP_TIME_S)
      out[m.metric] = step_range;
    else if (is_rate_of_step(m.metric) && step > 0)
      out[m.metric] = {value * step / step_range.high, value * step / step_range.low, step_range.why};
    else
      out[m.metric] = interval_around(value, width_of(m.kind));
  }
  return out;
}

} // namespace ccsim::api
