// `ccsim validate`: how well the calibrated constants predict rows they were not fitted on. For every fit of
// experiments/calibration/fits.json (a topology's constants and the calibration tables that fit them): refit on every
// row (in-sample), on all but one table (leave-one-table-out, where the fit has two or more), and on all but one row
// (leave-one-row-out: a row's paper values go together), predicting what was left out each time. A constant only one
// table supports cannot be tested by leaving that table out; the report says so instead of inventing a number.
#include "cli/CalibrationFits.hpp"
#include "cli/Command.hpp"
#include "cli/Options.hpp"
#include "cli/PlotOutput.hpp"
#include "cli/OutputFile.hpp"
#include "cli/Progress.hpp"
#include "cli/Refit.hpp"
#include "cli/Spawn.hpp"
#include "cli/Table.hpp"
#include "sim/io/JsonInput.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <set>

namespace ccsim::cli {

namespace {
double median_abs(std::vector<double> v)
{
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x); }), v.end());
  if (v.empty())
    return std::nan("");
  for (auto& x : v)
    x = std::abs(x);
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

nlohmann::json number_or_null(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }
std::string pct(double x) { return std::isfinite(x) ? fmt::format("{:.1f} %", x) : "-"; }
} // namespace

int cmd_validate(const std::vector<std::string>& args)
{
  po::options_description desc("ccsim validate options");
  add_common_options(desc);
  desc.add_options()
    ("fits", po::value<std::string>(), "calibration fits JSON (default: experiments/calibration/fits.json)")
    ("topology", po::value<std::string>(), "validate only the fit of this topology")
    ("jobs", po::value<std::string>()->default_value("2"), "simulations at once")
    ("no-rows", "skip leave-one-row-out (one refit per row; the slow part)")
    ("plot", po::value<std::string>()->value_name("DIR"), "draw paper vs predicted, in-sample and out-of-sample, into DIR (PNG + SVG, with validate.json)");
  add_long_run_options(desc, /*time_limit=*/false);
  po::variables_map vm;
  if (!parse_options("validate", args, desc, vm))
    return 0;
  const Format format = output_format(vm);
  const bool progress = read_long_run_options(vm);
  const auto jobs     = static_cast<int>(*integer_flag(vm, "jobs", io::range::kJobs));
  const std::string fits_path = vm.count("fits") ? vm["fits"].as<std::string>() : default_fits_path();
  auto fits                   = load_calibration_fits(fits_path);
  if (vm.count("topology")) {
    const auto want = vm["topology"].as<std::string>();
    std::erase_if(fits, [&](const CalibrationFit& f) { return f.topology != want; });
    if (fits.empty())
      throw io::InputError("--topology", "", fmt::format("{} has no fit in {}", io::echo(want), fits_path));
  }
  const bool rows_out = vm.count("no-rows") == 0;

  Progress line("ccsim validate", progress);
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
      line.update(fmt::format("{} ({})", fit.topology, what), static_cast<double>(k), static_cast<double>(fits.size()),
                  "fits");
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
  line.finish();

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
  const nlohmann::json doc = {{"fits_file", fits_path},
                              {"simulations", simulations},
                              {"median_abs_error_pct",
                               {{"leave_row_out", number_or_null(median_abs(all_loro))},
                                {"leave_table_out", number_or_null(median_abs(all_loto))},
                                {"in_sample", number_or_null(median_abs(all_in))}}},
                              {"fits", report}};
  if (vm.count("plot") != 0)
    plot_into(vm["plot"].as<std::string>(), "validate.json", doc, "validate_scatter.py", "validate", "the figure");
  if (format == Format::JSON) {
    std::cout << io::dump_json(doc, 2) << "\n";
    return 0;
  }
  std::cout << fmt::format("median |error| over {} paper values: leave-one-row-out {}, leave-one-table-out {} (fits "
                           "with two or more tables only), in-sample {}; {} simulations\n",
                           all_in.size(), pct(median_abs(all_loro)), pct(median_abs(all_loto)), pct(median_abs(all_in)),
                           simulations);
  Table t({"topology", "constants: preset -> refit", "table", "values", "preset", "in-sample", "leave table out",
           "leave row out"});
  for (const auto& f : report) {
    std::string consts;
    for (const auto& c : f["constants"])
      consts += fmt::format("{}{} {:.4g} -> {:.4g}", consts.empty() ? "" : "; ", c["pointer"].get<std::string>(),
                            c["preset"].get<double>(), c["refit"].get<double>());
    bool first = true;
    for (const auto& tb : f["tables"]) {
      auto cell = [&](const char* key) {
        return tb[key].is_null() ? std::string("-") : pct(tb[key].get<double>());
      };
      t.add_row({first ? f["topology"].get<std::string>() : "", first ? consts : "", tb["table"].get<std::string>(),
                 std::to_string(tb["values"].get<int>()), cell("preset_median_abs_error_pct"),
                 cell("in_sample_median_abs_error_pct"),
                 f["single_table"].get<bool>() ? "single table" : cell("leave_table_out_median_abs_error_pct"),
                 cell("leave_row_out_median_abs_error_pct")});
      first = false;
    }
  }
  t.print(std::cout);
  return 0;
}

} // namespace ccsim::cli
