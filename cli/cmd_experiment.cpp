// `ccsim experiment FILE.json [--out DIR] [--jobs N] [--no-plot]`: run a sweep or paper reproduction
// (api/experiment/ExperimentRun.hpp writes DIR/results.json and DIR/results.csv), print predicted vs paper with the
// error per row and the median, and draw the experiment's figure (plots/plot_experiment.py).
#include "api/experiment/ExperimentRunner.hpp"
#include "api/experiment/Mpi.hpp"
#include "api/experiment/ResultsCsv.hpp"
#include "api/options/ExperimentCommand.hpp"
#include "api/output/Table.hpp"
#include "api/process/ExitCodes.hpp"
#include "api/process/RunControl.hpp"
#include "cli/Command.hpp"
#include "cli/Options.hpp"
#include "cli/Progress.hpp"
#include "io/JsonInput.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>

namespace ccsim::cli {

namespace fs = std::filesystem;

namespace {
/// A sweep axis's header in the narrow table: short, with its unit (the results' column name in --wide and CSV).
std::string axis_header(const std::string& axis)
{
  static const std::map<std::string, std::string> kShort = {
      {"gpus", "GPUs"},          {"global_batch", "batch"},       {"micro_batch", "micro"},
      {"bandwidth_gbps", "Gbit/s"}, {"latency_us", "latency (us)"}, {"network_model", "network"},
      {"straggler_cv", "straggler cv"}, {"straggler_seed", "seed"}, {"memory_headroom_gb", "headroom (GB)"}};
  const auto it = kShort.find(axis);
  if (it != kShort.end())
    return it->second;
  return axis.rfind("params.", 0) == 0 ? axis.substr(7) : axis; // an algorithm's parameter by its key
}

/// A paper metric's title over its paper / predicted / error columns: the metric table's label ("allreduce (ms)"),
/// else the name as the experiment gives it (memory_gb_per_gpu, phase.<name>.<key>).
std::string metric_title(const std::string& metric)
{
  const auto m = metric_named(metric);
  return m ? metric_info(*m).label : metric;
}

/// Lower case, to compare a label with an axis value ("BERT-Large" names bert-large).
std::string lower(std::string text)
{
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char ch) { return std::tolower(ch); });
  return text;
}

/// Whether every row's label already names its value of `axis` (sdp4bit-table2's "gpt-1.3b A100 megatron-dp" names its
/// workload and algorithm): the narrow table leaves such a column out.
bool named_by_labels(const std::vector<ExperimentRow>& rows, const std::string& axis)
{
  return std::all_of(rows.begin(), rows.end(), [&](const ExperimentRow& r) {
    return !r.label.empty() && lower(r.label).find(lower(axis_cell(r, axis))) != std::string::npos;
  });
}

/// A cell of an axis in the narrow table: a file's stem for a file given by path (large-scale/gpt-22b-full.json is
/// gpt-22b-full), the value itself otherwise.
std::string narrow_axis_cell(const ExperimentRow& r, const std::string& axis)
{
  std::string cell = axis_cell(r, axis);
  if ((axis == "topology" || axis == "workload") && cell.size() > 5 && cell.substr(cell.size() - 5) == ".json")
    cell = fs::path(cell).stem().string();
  // A number in four significant digits, as the metrics are ("10.0000" Gbit/s is 10).
  double value           = 0;
  const auto [end, code] = std::from_chars(cell.data(), cell.data() + cell.size(), value);
  if (code == std::errc() && end == cell.data() + cell.size() && cell.find('.') != std::string::npos)
    cell = fmt::format("{:.4g}", value);
  return cell;
}

/// The rows as a table. Narrow (the default, 160 columns): axes that never change and the headline metrics a paper
/// column already predicts are left out (said once above, or in the paper's "predicted"), axes have short headers, and
/// each paper metric's paper, predicted and error columns stand under one title. --wide keeps every column, headed by
/// its results.csv name.
void print_rows(const Experiment& e, const std::vector<ExperimentRow>& rows)
{
  const bool wide = table_width() == 0;
  auto cols       = axis_columns(rows);
  // Columns whose value never changes say nothing per row: show them once above the table.
  std::vector<std::string> varying;
  std::string fixed;
  for (const auto& c : cols) {
    std::set<std::string> seen;
    for (const auto& r : rows)
      seen.insert(axis_cell(r, c));
    if (seen.size() > 1)
      varying.push_back(c);
    else
      fixed += fmt::format("{}{}={}", fixed.empty() ? "" : ", ", c, *seen.begin());
  }
  std::cout << wrap_text(e.name + (e.source.empty() ? "" : " (" + e.source + ")"), table_width()) << "\n";
  if (!fixed.empty())
    std::cout << wrap_text("fixed: " + fixed, table_width()) << "\n";
  const bool labels  = std::any_of(rows.begin(), rows.end(), [](const auto& r) { return !r.label.empty(); });
  if (!wide) // a column the row labels already say is said once, in the labels
    varying.erase(std::remove_if(varying.begin(), varying.end(),
                                 [&](const std::string& c) { return named_by_labels(rows, c); }),
                  varying.end());
  const bool speedup = std::any_of(rows.begin(), rows.end(), [](const auto& r) { return r.speedup.has_value(); });
  const bool tokens  = std::any_of(rows.begin(), rows.end(),
                                   [](const auto& r) { return !r.error && r.metric(Metric::TOKENS_PER_S) > 0; });
  std::set<std::string> baselines; // more than one (per algorithm or per row): a column says which
  for (const auto& r : rows)
    if (r.speedup)
      baselines.insert(r.speedup->over);
  const auto metrics = paper_metrics(rows);
  std::vector<std::string> headers;
  if (labels)
    headers.push_back("row");
  for (const auto& c : varying)
    headers.push_back(wide ? c : axis_header(c));
  // The headline metrics, headed as the metric table labels them (api/run/Metrics.hpp); narrow, one a paper column
  // predicts is shown there only. Tokens where the workload has a sequence length.
  std::vector<Metric> shown;
  // Narrow, a headline metric that is 0 in every row (no all-reduce in a pipeline) is left out too.
  auto all_zero = [&](Metric m) {
    return std::all_of(rows.begin(), rows.end(), [&](const auto& r) { return r.error || r.metric(m) == 0; });
  };
  for (const auto m : {Metric::SAMPLES_PER_S, Metric::STEP_TIME_S, Metric::ALLREDUCE_MS})
    if (wide || (std::find(metrics.begin(), metrics.end(), metric_name(m)) == metrics.end() && !all_zero(m)))
      shown.push_back(m);
  if (tokens)
    shown.push_back(Metric::TOKENS_PER_S);
  if (tokens && wide)
    shown.insert(shown.end(), {Metric::TOKENS_PER_S_PER_GPU, Metric::DAYS_PER_TRILLION_TOKENS});
  for (const auto m : shown)
    headers.push_back(metric_info(m).label);
  if (speedup)
    headers.push_back(wide ? "speedup (x)" : "speedup");
  if (baselines.size() > 1)
    headers.push_back("over");
  const std::size_t first_paper = headers.size();
  for (const auto& m : metrics)
    if (wide)
      headers.insert(headers.end(), {"paper " + m, "predicted " + m, "error (%)"});
    else
      headers.insert(headers.end(), {"paper", "pred.", "err (%)"});
  // A point that did not run leaves its metric cells empty and says why in a last column of its own (wrapped like
  // any long cell), so one long message does not widen the number columns of every row; a point that ran under
  // --allow-oom although it does not fit says so there too.
  const bool status =
      std::any_of(rows.begin(), rows.end(), [](const auto& r) { return r.status() != RowStatus::RAN; });
  if (status)
    headers.push_back("status");
  Table t(headers);
  if (!wide)
    for (std::size_t i = 0; i < metrics.size(); ++i)
      t.group(first_paper + 3 * i, 3, metric_title(metrics[i]));
  for (const auto& r : rows) {
    std::vector<std::string> cells;
    if (labels)
      cells.push_back(r.label);
    for (const auto& c : varying)
      cells.push_back(wide ? axis_cell(r, c) : narrow_axis_cell(r, c));
    if (r.error) {
      cells.resize(headers.size() - 1);
      cells.push_back("not run: " + *r.error);
      t.add_row(cells);
      continue;
    }
    for (const auto m : shown)
      cells.push_back(format_number(r.metric(m)));
    if (speedup)
      cells.push_back(r.speedup ? format_number(r.speedup->value, 3) : "");
    if (baselines.size() > 1)
      cells.push_back(r.speedup ? r.speedup->over : "");
    for (const auto& m : metrics) {
      const PaperValue* p = r.paper_value(m);
      cells.push_back(p ? format_number(p->paper) : "");
      cells.push_back(p ? format_number(p->predicted) : "");
      cells.push_back(p ? fmt::format("{:+.1f}", p->error_pct) : "");
    }
    if (status)
      cells.push_back(r.status() == RowStatus::RAN_OUT_OF_MEMORY ? "does not fit the GPUs' memory (ran under --allow-oom)"
                                                                  : "");
    t.add_row(cells);
  }
  t.print(std::cout, table_width());
  const double med = median_abs_error(rows);
  if (std::isfinite(med))
    std::cout << fmt::format("median |error| vs paper: {:.1f} % over {} values\n", med, paper_value_count(rows));
}

/// The results in the chosen format: results.json's document, results.csv's text, or the table.
void print_results(Format format, const Experiment& e, const ExperimentOutcome& o)
{
  if (format == Format::JSON)
    std::cout << io::dump_json(o.document, 2) << "\n";
  else if (format == Format::CSV)
    std::cout << results_csv(o.rows);
  else
    print_rows(e, o.rows);
}
} // namespace

int cmd_experiment(const std::vector<std::string>& args)
{
  const auto given = parse_command(experiment_options().options(), args);
  if (!given)
    return 0;
  const Format format        = output_format(*given);
  const bool progress        = read_long_run_options(*given);
  ExperimentCommand command  = build_experiment(*given);
  const Experiment& e        = command.experiment;
  ExperimentOptions& options = command.options;
  options.on_note = [](const std::string& line) { std::cerr << "ccsim experiment: " << line << "\n"; };
  const std::string what = mpi_size() > 1 ? fmt::format("{} (rank {} of {})", e.name, mpi_rank(), mpi_size()) : e.name;
  Progress line("ccsim experiment", progress);
  options.on_progress = [&](std::size_t finished, std::size_t total, std::size_t resumed, std::size_t running,
                            std::size_t failed) {
    std::string note = fmt::format("{} running", running);
    if (failed > 0)
      note += fmt::format(", {} failed", failed);
    line.update(what, static_cast<double>(finished), static_cast<double>(total), "points", static_cast<double>(resumed),
                note);
  };
  const auto o = run_experiment(e, options);
  line.finish();
  if (!o.rank0) {
    mpi_finish();
    return o.stopped ? stop_exception("").exit_code() : 0;
  }
  // Failed points: one line each on stderr. Without --keep-going the run stopped at the first and wrote no results.json.
  for (std::size_t i = 0; i < o.results.size(); ++i)
    if (o.results[i].failed())
      std::cerr << "ccsim experiment: " << io::printable(e.path, 200) << ": " << describe_point(e, i) << ": "
                << io::printable(o.results[i].error, 400) << "\n";
  if (o.stopped) {
    // On a time limit the finished points are printed too; after a signal under mpirun the ranks did not gather.
    if ((o.written || o.kept_previous) && stop_signal() == 0) {
      print_results(format, o.shown, o);
    }
    mpi_finish();
    throw stop_exception(o.gathered ? fmt::format("{} of {} points done, in {}{} (--resume runs the rest)", o.done,
                                                  e.points.size(), o.log_name,
                                                  o.kept_previous ? "; the earlier run's complete results.json and "
                                                                    "results.csv are kept"
                                                                  : " and results.json")
                                    : fmt::format("finished points are in {} (--resume runs the rest)",
                                                  io::printable((options.out / "results.rank*.jsonl").string(), 200)));
  }
  if (o.failed > 0 && !options.keep_going) {
    std::cerr << "ccsim experiment: stopped at the first failed point; the finished points are in " << o.log_name
              << " (--keep-going runs the rest)\n";
    mpi_finish();
    return o.input_failures == o.failed ? 2 : 1;
  }
  print_results(format, e, o);

  const PlotRun plot = draw_experiment_figure(command);
  if (plot.status == PlotRun::Status::NO_MATPLOTLIB)
    std::cerr << "ccsim experiment: warning: the figure was not drawn " << plot.message << "\n";
  else if (plot.status == PlotRun::Status::FAILED) // the results are written: said after them, with its own exit code
    std::cerr << "ccsim experiment: the figure was not drawn" << plot.message << "\n";
  if (format == Format::TABLE)
    std::cout << "wrote " << (options.out / "results.json").string() << ", " << (options.out / "results.csv").string()
              << "\n";
  mpi_finish();
  if (o.failed > 0)
    std::cerr << fmt::format("ccsim experiment: {} of {} points failed (listed above)\n", o.failed, o.results.size());
  if (o.failed > 0)
    return kExitFailed;
  return plot.status == PlotRun::Status::FAILED ? kExitFigureFailed : 0;
}

} // namespace ccsim::cli
