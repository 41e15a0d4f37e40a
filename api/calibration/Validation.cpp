// Validation of the calibrated constants; see Validation.hpp.
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
nlohmann::json number_or_null(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }

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
} // namespace

ValidationResult validate_fits(const ValidationRequest& req)
{
  const std::string& fits_path = req.fits_file;
  const int jobs                = req.jobs;
  const bool rows_out           = req.leave_rows_out;
  auto fits                     = load_calibration_fits(fits_path);
  if (req.topology) {
    const auto want = *req.topology;
    std::erase_if(fits, [&](const CalibrationFit& f) { return f.topology != want; });
    if (fits.empty())
      throw io::InputError("--topology", "", fmt::format("{} has no fit in {}", io::echo(want), fits_path));
  }

  ValidationResult result;
  nlohmann::json report = nlohmann::json::array();
  std::size_t simulations = 0;
  for (std::size_t k = 0; k < fits.size(); ++k) {
    const auto& fit = fits[k];
    Refitter refit(fit, jobs);
    const auto& rows = refit.rows();
    if (rows.empty())
      throw io::InputError(fits_path, fmt::format("/fits/{}", k),
                           fmt::format("no row of its tables runs on {}", fit.topology));
    auto note = [&](const std::string& what) {
      if (req.on_progress)
        req.on_progress(fmt::format("{} ({})", fit.topology, what), k, fits.size());
    };
    note("in-sample");
    const std::vector<bool> all(rows.size(), true);
    const auto preset_pred = refit.predict(refit.preset_values());
    const auto x_all       = refit.fit(all, refit.preset_values());
    const auto in_pred     = refit.predict(x_all);

    // Leave one table out: only where another table constrains the same constants.
    std::vector<double> loto(rows.size(), std::nan(""));
    if (fit.tables.size() >= 2)
      for (std::size_t t = 0; t < fit.tables.size(); ++t) {
        note(fmt::format("without {}", fit.tables[t]));
        std::vector<bool> use(rows.size());
        for (std::size_t i = 0; i < rows.size(); ++i)
          use[i] = rows[i].table != t;
        const auto& p = refit.predict(refit.fit(use, x_all));
        for (std::size_t i = 0; i < rows.size(); ++i)
          if (!use[i])
            loto[i] = p[i];
      }
    // Leave one row out: every paper value of one table row goes at once.
    std::vector<double> loro(rows.size(), std::nan(""));
    if (rows_out) {
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
        const auto& p = refit.predict(refit.fit(use, x_all));
        for (std::size_t i = 0; i < rows.size(); ++i)
          if (!use[i])
            loro[i] = p[i];
      }
    }
    simulations += refit.simulations();

    nlohmann::json constants = nlohmann::json::array();
    for (std::size_t c = 0; c < fit.constants.size(); ++c)
      constants.push_back({{"pointer", fit.constants[c]}, {"preset", refit.preset_values()[c]}, {"refit", x_all[c]}});
    nlohmann::json tables = nlohmann::json::array(), row_docs = nlohmann::json::array();
    for (std::size_t t = 0; t < fit.tables.size(); ++t) {
      std::vector<double> e_preset, e_in, e_loto, e_loro;
      for (std::size_t i = 0; i < rows.size(); ++i) {
        if (rows[i].table != t)
          continue;
        e_preset.push_back(error_pct(preset_pred[i], rows[i].paper));
        e_in.push_back(error_pct(in_pred[i], rows[i].paper));
        e_loto.push_back(error_pct(loto[i], rows[i].paper));
        e_loro.push_back(error_pct(loro[i], rows[i].paper));
      }
      tables.push_back({{"table", fit.tables[t]},
                        {"values", e_in.size()},
                        {"preset_median_abs_error_pct", number_or_null(median_abs(e_preset))},
                        {"in_sample_median_abs_error_pct", number_or_null(median_abs(e_in))},
                        {"leave_table_out_median_abs_error_pct", number_or_null(median_abs(e_loto))},
                        {"leave_row_out_median_abs_error_pct", number_or_null(median_abs(e_loro))}});
    }
    for (std::size_t i = 0; i < rows.size(); ++i) {
      // The row's out-of-sample error, as far out of sample as validate got, and the regime it was made in.
      ErrorRow e;
      e.regime = row_regime(refit.request(rows[i]), fit.topology);
      e.table  = fit.tables[rows[i].table];
      e.label  = rows[i].label;
      e.metric = rows[i].metric;
      e.kind   = std::isfinite(loro[i]) ? "leave_row_out" : std::isfinite(loto[i]) ? "leave_table_out" : "in_sample";
      e.error_pct = error_pct(e.kind == "leave_row_out" ? loro[i] : e.kind == "leave_table_out" ? loto[i] : in_pred[i],
                              rows[i].paper);
      result.errors.rows.push_back(e);
    }
    for (std::size_t i = 0; i < rows.size(); ++i)
      row_docs.push_back({{"table", fit.tables[rows[i].table]},
                          {"label", rows[i].label},
                          {"metric", rows[i].metric},
                          {"paper", rows[i].paper},
                          {"preset", number_or_null(preset_pred[i])},
                          {"in_sample", number_or_null(in_pred[i])},
                          {"leave_table_out", number_or_null(loto[i])},
                          {"leave_row_out", number_or_null(loro[i])}});
    report.push_back({{"topology", fit.topology},
                      {"source", fit.source},
                      {"constants", constants},
                      {"single_table", fit.tables.size() < 2},
                      {"tables", tables},
                      {"rows", row_docs}});
  }

  // Over every fit: the out-of-sample medians first (the numbers that count), then in-sample.
  std::vector<double> all_in, all_loto, all_loro;
  for (const auto& f : report)
    for (const auto& r : f["rows"]) {
      const double paper = r["paper"].get<double>();
      auto err = [&](const char* key) { return r[key].is_null() ? std::nan("") : error_pct(r[key].get<double>(), paper); };
      all_in.push_back(err("in_sample"));
      all_loto.push_back(err("leave_table_out"));
      all_loro.push_back(err("leave_row_out"));
    }
  result.values      = all_in.size();
  result.simulations = simulations;
  result.median_abs_error_pct_leave_row_out   = median_abs(all_loro);
  result.median_abs_error_pct_leave_table_out = median_abs(all_loto);
  result.median_abs_error_pct_in_sample       = median_abs(all_in);
  // How often the truth fell inside the interval a simulation would have reported, each row judged by an interval
  // made without it (api/run/Intervals.hpp's rule over the other rows' errors): out of sample twice over.
  std::map<std::string, std::vector<double>> widths, inside; // by table
  std::vector<double> all_widths, all_inside;
  nlohmann::json coverage_rows = nlohmann::json::array();
  for (const auto& e : result.errors.rows) {
    if (e.kind == "in_sample" || !std::isfinite(e.error_pct))
      continue;
    const auto w = half_width(result.errors, e.regime, metric_kind(e.metric), [&](const ErrorRow& other) {
      return other.regime.topology == e.regime.topology && other.table == e.table && other.label == e.label;
    });
    const bool in = std::abs(e.error_pct) / 100 <= w.h;
    const std::string key = e.regime.topology + " " + e.table;
    widths[key].push_back(100 * w.h);
    inside[key].push_back(in ? 100 : 0);
    all_widths.push_back(100 * w.h);
    all_inside.push_back(in ? 100 : 0);
  }
  auto mean = [](const std::vector<double>& v) {
    double sum = 0;
    for (const double x : v)
      sum += x;
    return v.empty() ? std::nan("") : sum / static_cast<double>(v.size());
  };
  for (auto& f : report)
    for (auto& t : f["tables"]) {
      const std::string key = f["topology"].get<std::string>() + " " + t["table"].get<std::string>();
      t["interval_coverage_pct"]          = number_or_null(mean(inside[key]));
      t["median_interval_half_width_pct"] = number_or_null(median_abs(widths[key]));
    }
  result.interval_coverage_pct          = mean(all_inside);
  result.median_interval_half_width_pct = median_abs(all_widths);
  result.document = {{"fits_file", fits_path},
                     {"intervals",
                      {{"values", all_inside.size()},
                       {"coverage_pct", number_or_null(result.interval_coverage_pct)},
                       {"median_half_width_pct", number_or_null(result.median_interval_half_width_pct)}}},
                              {"simulations", simulations},
                              {"median_abs_error_pct",
                               {{"leave_row_out", number_or_null(median_abs(all_loro))},
                                {"leave_table_out", number_or_null(median_abs(all_loto))},
                                {"in_sample", number_or_null(median_abs(all_in))}}},
                              {"fits", report}};
  return result;
}

} // namespace ccsim::api
