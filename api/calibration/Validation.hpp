#pragma once
// `ccsim validate` as a library call: how well the calibrated constants predict rows they were not fitted on. For
// every fit of a fits file (experiments/calibration/fits.json: a topology's constants and the calibration tables that
// fit them): refit on every row (in-sample), on all but one table (leave-one-table-out, where the fit has two or more),
// and on all but one row (leave-one-row-out: a row's paper values go together), predicting what was left out each
// time. A constant only one table supports cannot be tested by leaving that table out; the report says so instead of
// inventing a number.
//
// The result is typed: per fit its constants and tables, per paper value its predictions, and the summary statistics.
// to_json is its one serialisation (`validate --format json`, validate.json beside the figure); validation_from_json
// reads it back. The rows' out-of-sample errors with their regimes are a file of their own (PredictionErrors).

#include "api/run/PredictionErrors.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ccsim::api {

struct ValidationRequest {
  std::string fits_file;               // default_fits_path() for the presets'
  std::optional<std::string> topology; // only this topology's fit
  int jobs            = 2;
  bool leave_rows_out = true; // leave-one-row-out: one refit per row, the slow part
  /// Progress: `what` is being refitted, in fit `done` of `total`.
  std::function<void(const std::string& what, std::size_t done, std::size_t total)> on_progress;
};

/// A fitted constant: its JSON pointer in the topology, the preset's value and the value refitted on every row.
struct ConstantRefit {
  std::string pointer;
  double preset = 0, refit = 0;
};

/// One paper value of a calibration table and ccsim's predictions of it: with the preset's constants, and with the
/// constants refitted on every row, without the value's table, and without its row. NaN where there is none (a fit of
/// one table has no leave-table-out prediction).
struct ValidatedValue {
  std::string table, label, metric;
  double paper           = 0;
  double preset          = std::nan("");
  double in_sample       = std::nan("");
  double leave_table_out = std::nan("");
  double leave_row_out   = std::nan("");
  double predicted(Holdout holdout) const;
  /// 100 (predicted - paper) / paper for that prediction (NaN where there is none).
  double error_pct(Holdout holdout) const;
  double preset_error_pct() const;
};

/// The statistics of one calibration table: how many paper values it has, the median |error| of each kind of
/// prediction, and how often the paper value fell inside the interval made without its row. NaN where there is none.
struct ValidatedTable {
  std::string table;
  std::size_t values                             = 0;
  double preset_median_abs_error_pct             = std::nan("");
  double in_sample_median_abs_error_pct          = std::nan("");
  double leave_table_out_median_abs_error_pct    = std::nan("");
  double leave_row_out_median_abs_error_pct      = std::nan("");
  double interval_coverage_pct                   = std::nan("");
  double median_interval_half_width_pct          = std::nan("");
};

struct ValidatedFit {
  std::string topology, source;
  std::vector<ConstantRefit> constants;
  bool single_table = false; // one table: leave-one-table-out cannot test it
  std::vector<ValidatedTable> tables;
  std::vector<ValidatedValue> rows; // every paper value of the tables, table by table
};

struct ValidationResult {
  std::string fits_file;
  std::vector<ValidatedFit> fits;
  std::size_t values = 0, simulations = 0;
  /// Every row's out-of-sample error with its regime: what `--errors-out` writes and simulations draw intervals from.
  PredictionErrors errors;
  /// Over every out-of-sample value: how many, the share whose paper value fell inside the interval made without it,
  /// and the median half-width.
  std::size_t interval_values = 0;
  double interval_coverage_pct = 0, median_interval_half_width_pct = 0;
  double median_abs_error_pct_leave_row_out = 0, median_abs_error_pct_leave_table_out = 0,
         median_abs_error_pct_in_sample = 0; // NaN where there is none
};

/// Bad fits files and fits whose tables have no row on their topology throw io::InputError.
ValidationResult validate_fits(const ValidationRequest& request);

/// `validate --format json`'s document: {"fits_file", "simulations", "median_abs_error_pct": {leave_row_out,
/// leave_table_out, in_sample}, "intervals": {values, coverage_pct, median_half_width_pct}, "fits": [{"topology",
/// "source", "constants": [{pointer, preset, refit}], "single_table", "tables": [{table, values,
/// preset_/in_sample_/leave_table_out_/leave_row_out_median_abs_error_pct, interval_coverage_pct,
/// median_interval_half_width_pct}], "rows": [{table, label, metric, paper, preset, in_sample, leave_table_out,
/// leave_row_out}]}]}; null where there is no number.
nlohmann::json to_json(const ValidationResult& result);
/// One table's statistics as the document holds them (also a row of `validate --format csv`).
nlohmann::json to_json(const ValidatedTable& table);
/// Reads what to_json wrote (without `errors`, which are their own file); a damaged document throws
/// std::invalid_argument naming the field.
ValidationResult validation_from_json(const nlohmann::json& doc);

} // namespace ccsim::api
