// Validation of the calibrated constants; see Validation.hpp. Per fit: the refits (in-sample, without each table,
// without each row) and their predictions, then the fit's typed result and its rows' out-of-sample errors; over every
// fit: the interval coverage and the medians.
#include "api/calibration/Validation.hpp"

#include "api/calibration/CalibrationFits.hpp"
#include "api/calibration/Refit.hpp"
#include "api/output/Statistics.hpp"
#include "api/run/Intervals.hpp"
#include "api/run/ResolvedRun.hpp"
#include "io/JsonInput.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace ccsim::api {

namespace {
/// The regime a calibration row's prediction was made in: its request resolved with the preset's constants (what a
/// user's run on the preset compares against).
Regime row_regime(const SimulateRequest& request, const std::string& topology)
{
  const auto run = resolve_run(request);
  return {topology,
          run.work.name,
          run.algo->name(),
          run.shape.gpus,
          run.shape.tp,
          run.shape.pp,
          run.topo.node_uplink_bytes_per_s() * 8 / 1e9};
}

/// The fits to validate: the file's, or the one of `request.topology`.
std::vector<CalibrationFit> fits_to_validate(const ValidationRequest& req)
{
  auto fits = load_calibration_fits(req.fits_file);
  if (req.topology) {
    const auto want = *req.topology;
    std::erase_if(fits, [&](const CalibrationFit& f) { return f.topology != want; });
    if (fits.empty())
      throw io::InputError("--topology", "", fmt::format("{} has no fit in {}", io::echo(want), req.fits_file));
  }
  return fits;
}

/// Every row's predictions of one fit (NaN where there is none), and the constants refitted on every row.
struct FitPredictions {
  std::vector<double> preset, in_sample, leave_table_out, leave_row_out;
  std::vector<double> refit; // the constants fitted on every row
};

FitPredictions refit_predictions(const CalibrationFit& fit, Refitter& refit, bool rows_out,
                                 const std::function<void(const std::string&)>& note)
{
  const auto& rows = refit.rows();
  FitPredictions p;
  note("in-sample");
  const std::vector<bool> all(rows.size(), true);
  p.preset    = refit.predict(refit.preset_values());
  p.refit     = refit.fit(all, refit.preset_values());
  p.in_sample = refit.predict(p.refit);
  // Leave one table out: only where another table constrains the same constants.
  p.leave_table_out.assign(rows.size(), std::nan(""));
  if (fit.tables.size() >= 2)
    for (std::size_t t = 0; t < fit.tables.size(); ++t) {
      note(fmt::format("without {}", fit.tables[t]));
      std::vector<bool> use(rows.size());
      for (std::size_t i = 0; i < rows.size(); ++i)
        use[i] = rows[i].table != t;
      const auto& predicted = refit.predict(refit.fit(use, p.refit));
      for (std::size_t i = 0; i < rows.size(); ++i)
        if (!use[i])
          p.leave_table_out[i] = predicted[i];
    }
  // Leave one row out: every paper value of one table row goes at once.
  p.leave_row_out.assign(rows.size(), std::nan(""));
  if (!rows_out)
    return p;
  std::set<std::pair<std::size_t, std::size_t>> points;
  for (const auto& r : rows)
    points.insert({r.table, r.point});
  std::size_t done = 0;
  for (const auto& [t, pnt] : points) {
    note(fmt::format("row {} of {} out", ++done, points.size()));
    std::vector<bool> use(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i)
      use[i] = !(rows[i].table == t && rows[i].point == pnt);
    if (std::none_of(use.begin(), use.end(), [](bool u) { return u; }))
      continue; // a single row: nothing left to fit on
    const auto& predicted = refit.predict(refit.fit(use, p.refit));
    for (std::size_t i = 0; i < rows.size(); ++i)
      if (!use[i])
        p.leave_row_out[i] = predicted[i];
  }
  return p;
}

/// Table `t`'s median |error| of each kind of prediction (its interval statistics come later, over every fit).
/// `values` are the fit's, one per row of `rows`.
ValidatedTable table_statistics(std::size_t t, const std::string& table, const std::vector<FitRow>& rows,
                                const std::vector<ValidatedValue>& values)
{
  std::vector<double> e_preset, e_in, e_loto, e_loro;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].table != t)
      continue;
    const ValidatedValue& v = values[i];
    e_preset.push_back(v.preset_error_pct());
    e_in.push_back(v.error_pct(Holdout::IN_SAMPLE));
    e_loto.push_back(v.error_pct(Holdout::LEAVE_TABLE_OUT));
    e_loro.push_back(v.error_pct(Holdout::LEAVE_ROW_OUT));
  }
  ValidatedTable out;
  out.table                                = table;
  out.values                               = e_in.size();
  out.preset_median_abs_error_pct          = median_abs(e_preset);
  out.in_sample_median_abs_error_pct       = median_abs(e_in);
  out.leave_table_out_median_abs_error_pct = median_abs(e_loto);
  out.leave_row_out_median_abs_error_pct   = median_abs(e_loro);
  return out;
}

ValidatedFit validated_fit(const CalibrationFit& fit, const Refitter& refit, const FitPredictions& p)
{
  ValidatedFit out;
  out.topology     = fit.topology;
  out.source       = fit.source;
  out.single_table = fit.tables.size() < 2;
  for (std::size_t c = 0; c < fit.constants.size(); ++c)
    out.constants.push_back({fit.constants[c], refit.preset_values()[c], p.refit[c]});
  const auto& rows = refit.rows();
  for (std::size_t i = 0; i < rows.size(); ++i)
    out.rows.push_back({fit.tables[rows[i].table], rows[i].label, rows[i].metric, rows[i].paper, p.preset[i],
                        p.in_sample[i], p.leave_table_out[i], p.leave_row_out[i]});
  for (std::size_t t = 0; t < fit.tables.size(); ++t)
    out.tables.push_back(table_statistics(t, fit.tables[t], rows, out.rows));
  return out;
}

/// Each row's out-of-sample error, as far out of sample as validate got, and the regime it was made in.
void add_error_rows(const ValidatedFit& fit, Refitter& refit, PredictionErrors& errors)
{
  const auto& rows = refit.rows();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const ValidatedValue& v = fit.rows[i];
    ErrorRow e;
    e.regime    = row_regime(refit.request(rows[i]), fit.topology);
    e.table     = v.table;
    e.label     = v.label;
    e.metric    = v.metric;
    e.kind      = std::isfinite(v.leave_row_out)     ? Holdout::LEAVE_ROW_OUT
                  : std::isfinite(v.leave_table_out) ? Holdout::LEAVE_TABLE_OUT
                                                     : Holdout::IN_SAMPLE;
    e.error_pct = v.error_pct(e.kind);
    errors.rows.push_back(e);
  }
}

double mean(const std::vector<double>& v)
{
  double sum = 0;
  for (const double x : v)
    sum += x;
  return v.empty() ? std::nan("") : sum / static_cast<double>(v.size());
}

/// How often the truth fell inside the interval a simulation would have reported, each row judged by an interval
/// made without it (api/run/Intervals.hpp's rule over the other rows' errors): out of sample twice over.
void add_interval_coverage(ValidationResult& result)
{
  std::map<std::string, std::vector<double>> widths, inside; // by topology and table
  std::vector<double> all_widths, all_inside;
  for (const auto& e : result.errors.rows) {
    if (e.kind == Holdout::IN_SAMPLE || !std::isfinite(e.error_pct))
      continue;
    // Every metric a calibration table names has a kind: the experiment loader admits no other (api/run/Metrics.hpp).
    const auto kind = metric_kind(e.metric).value_or(MetricKind::THROUGHPUT);
    const auto w    = half_width(result.errors, e.regime, kind, [&](const ErrorRow& other) {
      return other.regime.topology == e.regime.topology && other.table == e.table && other.label == e.label;
    });
    // Inside the interval a report prints, [p (1 - h), p / (1 - h)] (Intervals.hpp): with p = y (1 + e), the truth y
    // is inside exactly when -h <= e <= h / (1 - h).
    const double err = e.error_pct / 100;
    const bool in    = err >= -w.h && err <= w.h / (1 - w.h);
    const std::string key = e.regime.topology + " " + e.table;
    widths[key].push_back(100 * w.h);
    inside[key].push_back(in ? 100 : 0);
    all_widths.push_back(100 * w.h);
    all_inside.push_back(in ? 100 : 0);
  }
  for (auto& f : result.fits)
    for (auto& t : f.tables) {
      const std::string key            = f.topology + " " + t.table;
      t.interval_coverage_pct          = mean(inside[key]);
      t.median_interval_half_width_pct = median_abs(widths[key]);
    }
  result.interval_values                = all_inside.size();
  result.interval_coverage_pct          = mean(all_inside);
  result.median_interval_half_width_pct = median_abs(all_widths);
}

/// Over every fit: the out-of-sample medians (the numbers that count), then in-sample.
void add_medians(ValidationResult& result)
{
  std::vector<double> all_in, all_loto, all_loro;
  for (const auto& f : result.fits)
    for (const auto& v : f.rows) {
      all_in.push_back(v.error_pct(Holdout::IN_SAMPLE));
      all_loto.push_back(v.error_pct(Holdout::LEAVE_TABLE_OUT));
      all_loro.push_back(v.error_pct(Holdout::LEAVE_ROW_OUT));
    }
  result.values                               = all_in.size();
  result.median_abs_error_pct_leave_row_out   = median_abs(all_loro);
  result.median_abs_error_pct_leave_table_out = median_abs(all_loto);
  result.median_abs_error_pct_in_sample       = median_abs(all_in);
}
} // namespace

double ValidatedValue::predicted(Holdout holdout) const
{
  switch (holdout) {
  case Holdout::IN_SAMPLE: return in_sample;
  case Holdout::LEAVE_TABLE_OUT: return leave_table_out;
  case Holdout::LEAVE_ROW_OUT: return leave_row_out;
  }
  return std::nan("");
}

double ValidatedValue::error_pct(Holdout holdout) const { return api::error_pct(predicted(holdout), paper); }

double ValidatedValue::preset_error_pct() const { return api::error_pct(preset, paper); }

ValidationResult validate_fits(const ValidationRequest& req)
{
  const auto fits = fits_to_validate(req);
  ValidationResult result;
  result.fits_file = req.fits_file;
  for (std::size_t k = 0; k < fits.size(); ++k) {
    const auto& fit = fits[k];
    Refitter refit(fit, req.jobs);
    if (refit.rows().empty())
      throw io::InputError(req.fits_file, fmt::format("/fits/{}", k),
                           fmt::format("no row of its tables runs on {}", fit.topology));
    const auto predictions = refit_predictions(fit, refit, req.leave_rows_out, [&](const std::string& what) {
      if (req.on_progress)
        req.on_progress(fmt::format("{} ({})", fit.topology, what), k, fits.size());
    });
    result.simulations += refit.simulations();
    result.fits.push_back(validated_fit(fit, refit, predictions));
    add_error_rows(result.fits.back(), refit, result.errors);
  }
  add_medians(result);
  add_interval_coverage(result);
  return result;
}

} // namespace ccsim::api
