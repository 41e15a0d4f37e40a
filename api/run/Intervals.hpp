#pragma once
// An error bar on every prediction (issue 32): for each headline metric, the range the truth should lie in, from how far
// off ccsim was out of sample in the nearest calibrated regime (api/run/PredictionErrors.hpp), widened when the run
// extrapolates beyond it, with the reasons.
//
// The rule. The pool: the calibration rows of the run's algorithm on its topology whose metric is of the same kind
// (throughput: samples/s, step time, TFLOP/s; communication: all-reduce and pipeline-send times); when fewer than 3,
// every algorithm's rows of the kind there; then every row of that topology; or, when the topology has no
// calibration, the rows of the run's algorithm and kind on every topology, or when fewer than 3 every row of the kind
// there; its base is the larger of the rows' quantile and the quantile with each topology weighing as one.
// The base half-width h: the split-conformal 80 % quantile of the pool's |error| (the ceil(0.8 (n + 1))-th smallest,
// the largest when n is small; at least 2 %), so that about 4 in 5 new rows of the same regime fall inside. Then
// widened, a factor per way the run leaves the pool (each named in `why`):
//   inter-node rate below the pool's lowest      x (1 + log2(lowest / rate))
//   inter-node rate above the pool's highest     x (1 + log2(rate / highest) / 4)
//   GPUs outside the pool's range                x (1 + log2(ratio) / 4)
//   a tp x pp split no pool row has              x 1.5
//   a workload or an algorithm no pool row has   x 1.25 each
//   a topology with no calibration at all        x 2
// and capped at 0.9. With |error| <= h, a truth y and a prediction p satisfy p = y (1 + e), so y lies in
// [p / (1 + h), p / (1 - h)] when the table measured the metric itself, and in [p (1 - h), p (1 + h)] when it measured
// its reciprocal (a table of samples/s bounds a step time that way). The interval is the union of the two,
// [p (1 - h), p / (1 - h)]: the same form for a time and for the rate derived from it, so that a run's step, samples/s
// and TFLOP/s ranges are ONE interval seen three ways (issue 48): the step's, with samples/s and TFLOP/s as
// p x step / t over it. Physics bounds it: the step is never shorter than its FLOPs at the GPU's dense peak for the
// run's GEMM format, so TFLOP/s per GPU never exceeds that peak.

#include "api/run/Metrics.hpp"
#include "api/run/PredictionErrors.hpp"
#include "api/run/SimulationReport.hpp"

#include <functional>
#include <map>
#include <string>

namespace ccsim::api {

struct HalfWidth {
  double h = 0;       // relative: |error| <= h
  std::string why;    // the pool and every widening, in one line
};

/// The half-width for `regime` and `kind` from `errors`, leaving out the rows for which `skip` says true (validate's
/// leave-one-out coverage). Without any usable row: h = 0.9 and a why that says so.
HalfWidth half_width(const PredictionErrors& errors, const Regime& regime, MetricKind kind,
                     const std::function<bool(const ErrorRow&)>& skip = {});

/// [p (1 - h), p / (1 - h)].
Interval interval_around(double prediction, const HalfWidth& width);

/// The regime a report was simulated in.
Regime regime_of(const SimulationReport& report);

/// An interval for every metric the table gives one (api/run/Metrics.hpp: samples_per_s, step_time_s,
/// tflops_per_gpu, and allreduce_ms when the run has a synchronisation), each from the half-width of its kind; the
/// three throughput metrics share the step's interval, its low end at least the step's FLOPs at
/// `peak_flops_per_gpu` (the GPU's dense FLOP/s for the run's format; 0: unknown, no such bound).
std::map<Metric, Interval> prediction_intervals(const SimulationReport& report, const PredictionErrors& errors,
                                                double peak_flops_per_gpu = 0);

} // namespace ccsim::api
