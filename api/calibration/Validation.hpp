#pragma once
// `ccsim validate` as a library call: how well the calibrated constants predict rows they were not fitted on. For
// every fit of a fits file (experiments/calibration/fits.json: a topology's constants and the calibration tables that
// fit them): refit on every row (in-sample), on all but one table (leave-one-table-out, where the fit has two or more),
// and on all but one row (leave-one-row-out: a row's paper values go together), predicting what was left out each
// time. A constant only one table supports cannot be tested by leaving that table out; the report says so instead of
// inventing a number.

#include "api/run/PredictionErrors.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

namespace ccsim::api {

struct ValidationRequest {
  std::string fits_file;               // default_fits_path() for the presets'
  std::optional<std::string> topology; // only this topology's fit
  int jobs            = 2;
  bool leave_rows_out = true; // leave-one-row-out: one refit per row, the slow part
  /// Progress: `what` is being refitted, in fit `done` of `total`.
  std::function<void(const std::string& what, std::size_t done, std::size_t total)> on_progress;
};

struct ValidationResult {
  /// {"fits_file", "simulations", "median_abs_error_pct": {leave_row_out, leave_table_out, in_sample}, "fits": [
  ///   {"topology", "source", "constants": [{pointer, preset, refit}], "single_table", "tables": [{table, values,
  ///    preset_/in_sample_/leave_table_out_/leave_row_out_median_abs_error_pct}], "rows": [{table, label, metric,
  ///    paper, preset, in_sample, leave_table_out, leave_row_out}]}]}; null where there is no number.
  nlohmann::json document;
  std::size_t values = 0, simulations = 0;
  /// Every row's out-of-sample error with its regime: what `--errors-out` writes and simulations draw intervals from.
  PredictionErrors errors;
  /// The share of rows whose paper value fell inside the interval made without them, and the median half-width.
  double interval_coverage_pct = 0, median_interval_half_width_pct = 0;
  double median_abs_error_pct_leave_row_out = 0, median_abs_error_pct_leave_table_out = 0,
         median_abs_error_pct_in_sample = 0; // NaN where there is none
};

/// Bad fits files and fits whose tables have no row on their topology throw io::InputError.
ValidationResult validate_fits(const ValidationRequest& request);

} // namespace ccsim::api
