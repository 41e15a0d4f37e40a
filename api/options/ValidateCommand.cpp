// `validate`'s option table and request builder (ValidateCommand.hpp).
#include "api/options/ValidateCommand.hpp"

#include "api/calibration/CalibrationFits.hpp"
#include "api/options/CommonOptions.hpp"
#include "api/output/OutputFile.hpp"
#include "api/output/PlotOutput.hpp"

#include "io/JsonInput.hpp"

namespace ccsim::api {

const OptionTable<ValidateCommand>& validate_options()
{
  static const OptionTable<ValidateCommand> table = [] {
    using C    = ValidateCommand;
    auto lines = terminal_lines<C>();
    append(lines, {
        {path_option("fits", "calibration fits JSON (default: experiments/calibration/fits.json)"), into(&C::fits_file)},
        {text_option("topology", "validate only the fit of this topology"), into(&C::topology)},
        {integer_option("jobs", io::range::kJobs, "simulations at once").defaults("2"), into(&C::jobs)},
        {flag_option("no-rows", "skip leave-one-row-out (one refit per row; the slow part)"),
         [](C& c, const GivenValue&, const Option&) { c.leave_rows_out = false; }},
        {path_option("errors-out", "write every row's out-of-sample error with its regime: the file simulations draw "
                                   "their intervals from (experiments/calibration/prediction-errors.json for the "
                                   "presets)")
             .value("FILE"),
         into(&C::errors_out)},
        {path_option("plot", "draw paper vs predicted, in-sample and out-of-sample, into DIR (PNG + SVG, with "
                             "validate.json)")
             .value("DIR"),
         into(&C::plot_dir)},
    });
    append(lines, long_run_lines<C>(""));
    return OptionTable<C>("validate", "", "validate", std::move(lines));
  }();
  return table;
}

ValidateCommand build_validate(const GivenValues& given)
{
  ValidateCommand c = validate_options().fill(given);
  if (!given.has("fits")) // given, even empty, it is the file to read (and an empty name is its error)
    c.fits_file = default_fits_path();
  return c;
}

void write_validate_files(const ValidateCommand& c, const ValidationResult& result)
{
  if (c.errors_out)
    write_output_file(*c.errors_out, io::dump_json(to_json(result.errors), 2) + "\n", "--errors-out");
  if (c.plot_dir)
    plot_into(*c.plot_dir, "validate.json", to_json(result), "validate_scatter.py", "validate", "the figure");
}

} // namespace ccsim::api
