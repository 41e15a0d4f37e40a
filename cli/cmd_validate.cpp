// `ccsim validate`: how well the calibrated constants predict rows they were not fitted on. For every fit of
// experiments/calibration/fits.json (a topology's constants and the calibration tables that fit them): refit on every
// row (in-sample), on all but one table (leave-one-table-out, where the fit has two or more), and on all but one row
// (leave-one-row-out: a row's paper values go together), predicting what was left out each time. A constant only one
// table supports cannot be tested by leaving that table out; the report says so instead of inventing a number.
#include "api/options/ValidateCommand.hpp"
#include "api/output/Table.hpp"
#include "cli/Command.hpp"
#include "cli/Options.hpp"
#include "cli/Progress.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <set>

namespace ccsim::cli {

namespace {
std::string pct(double x) { return std::isfinite(x) ? fmt::format("{:.1f} %", x) : "-"; }
} // namespace

int cmd_validate(const std::vector<std::string>& args)
{
  const auto given = parse_command(validate_options().options(), args);
  if (!given)
    return 0;
  const Format format = output_format(*given);
  const bool progress = read_long_run_options(*given);
  ValidateCommand req = build_validate(*given);
  Progress line("ccsim validate", progress);
  req.on_progress = [&](const std::string& what, std::size_t done, std::size_t total) {
    line.update(what, static_cast<double>(done), static_cast<double>(total), "fits");
  };
  const auto result = validate_fits(req);
  line.finish();
  write_validate_files(req, result);
  const nlohmann::json doc = to_json(result);
  // CSV: a row per (topology, calibration table) as the table prints them, with the fit's topology beside it.
  std::vector<nlohmann::json> table_rows;
  for (const auto& f : result.fits)
    for (const auto& tb : f.tables) {
      table_rows.push_back(to_json(tb));
      table_rows.back()["topology"]     = f.topology;
      table_rows.back()["single_table"] = f.single_table;
    }
  if (print_json_or_csv(format, doc, table_rows))
    return 0;
  std::cout << fmt::format("median |error| over {} paper values: leave-one-row-out {}, leave-one-table-out {} (fits "
                           "with two or more tables only), in-sample {}; {} simulations\n",
                           result.values, pct(result.median_abs_error_pct_leave_row_out),
                           pct(result.median_abs_error_pct_leave_table_out), pct(result.median_abs_error_pct_in_sample),
                           result.simulations);
  std::cout << fmt::format("prediction intervals: {} of the out-of-sample values inside the interval made without "
                           "them, median half-width {}\n",
                           pct(result.interval_coverage_pct), pct(result.median_interval_half_width_pct));
  Table t({"topology", "constants: preset -> refit", "table", "values", "preset", "in-sample", "leave table out",
           "leave row out", "in interval", "half-width"});
  for (const auto& f : result.fits) {
    std::string consts;
    for (const auto& c : f.constants)
      consts += fmt::format("{}{} {:.4g} -> {:.4g}", consts.empty() ? "" : "; ", c.pointer, c.preset, c.refit);
    bool first = true;
    for (const auto& tb : f.tables) {
      t.add_row({first ? f.topology : "", first ? consts : "", tb.table, std::to_string(tb.values),
                 pct(tb.preset_median_abs_error_pct), pct(tb.in_sample_median_abs_error_pct),
                 f.single_table ? "single table" : pct(tb.leave_table_out_median_abs_error_pct),
                 pct(tb.leave_row_out_median_abs_error_pct), pct(tb.interval_coverage_pct),
                 pct(tb.median_interval_half_width_pct)});
      first = false;
    }
  }
  t.print(std::cout, table_width());
  return 0;
}

} // namespace ccsim::cli
