// `ccsim experiment FILE.json [--out DIR] [--jobs N] [--no-plot]`: run a sweep or paper reproduction,
// write DIR/results.json and DIR/results.csv, print predicted vs paper with the error per row and the median,
// and draw the experiment's figure (plots/plot_experiment.py).
#include "cli/Command.hpp"
#include "cli/ConfigHash.hpp"
#include "cli/Experiment.hpp"
#include "cli/ExperimentRunner.hpp"
#include "cli/Options.hpp"
#include "cli/OutputFile.hpp"
#include "cli/ResultLog.hpp"
#include "cli/RunControl.hpp"
#include "cli/Spawn.hpp"
#include "cli/Table.hpp"
#include "sim/io/JsonInput.hpp"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>

namespace ccsim::cli {

namespace fs = std::filesystem;

namespace {
const std::vector<std::string> AXIS_ORDER = {"topology", "workload", "algorithm", "gpus", "global_batch", "micro_batch",
                                             "tp", "pp", "bandwidth_gbps", "latency_us", "network_model", "fidelity",
                                             "straggler_cv", "straggler_seed"};

/// Axis columns in a stable order: the known ones first, then params.*, as CLI options name them.
std::vector<std::string> axis_columns(const std::vector<nlohmann::json>& rows)
{
  std::set<std::string> present, params;
  for (const auto& r : rows)
    for (const auto& [k, _] : r.items()) {
      if (std::find(AXIS_ORDER.begin(), AXIS_ORDER.end(), k) != AXIS_ORDER.end())
        present.insert(k);
      else if (k.rfind("params.", 0) == 0)
        params.insert(k);
    }
  std::vector<std::string> out;
  for (const auto& k : AXIS_ORDER)
    if (present.count(k) != 0)
      out.push_back(k);
  out.insert(out.end(), params.begin(), params.end());
  return out;
}

std::vector<std::string> paper_metrics(const std::vector<nlohmann::json>& rows)
{
  std::vector<std::string> out;
  for (const auto& r : rows)
    if (r.contains("paper"))
      for (const auto& [m, _] : r["paper"].items())
        if (std::find(out.begin(), out.end(), m) == out.end())
          out.push_back(m);
  return out;
}

std::string cell(const nlohmann::json& v)
{
  if (v.is_null())
    return "";
  if (v.is_number_integer())
    return std::to_string(v.get<long long>());
  if (v.is_number())
    return format_number(v.get<double>(), 6);
  if (v.is_string())
    return v.get<std::string>();
  return io::dump_json(v);
}

void write_csv(const fs::path& file, const std::vector<nlohmann::json>& rows)
{
  std::vector<std::string> cols = axis_columns(rows);
  cols.push_back("label");
  for (const auto& m : known_metrics())
    cols.push_back(m);
  cols.insert(cols.end(), {"speedup", "scaling_efficiency"});
  for (const auto& m : paper_metrics(rows))
    cols.insert(cols.end(), {"paper_" + m, "predicted_" + m, "error_pct_" + m});
  cols.push_back("error");
  Table t(cols);
  for (const auto& r : rows) {
    std::vector<std::string> cells;
    for (const auto& c : cols) {
      if (c.rfind("paper_", 0) == 0 || c.rfind("predicted_", 0) == 0 || c.rfind("error_pct_", 0) == 0) {
        const auto under = c.find('_', c.rfind("error_pct_", 0) == 0 ? 6 : 0);
        const std::string group = c.substr(0, under), metric = c.substr(under + 1);
        cells.push_back(r.contains(group) && r[group].contains(metric) ? cell(r[group][metric]) : "");
      } else {
        cells.push_back(r.contains(c) ? cell(r[c]) : "");
      }
    }
    t.add_row(cells);
  }
  std::ostringstream text;
  t.print_csv(text);
  write_output_file(file, text.str(), "--out");
}

void print_rows(const Experiment& e, const std::vector<nlohmann::json>& rows)
{
  auto cols = axis_columns(rows);
  // Columns whose value never changes say nothing per row: show them once above the table.
  std::vector<std::string> varying;
  std::string fixed;
  for (const auto& c : cols) {
    std::set<std::string> seen;
    for (const auto& r : rows)
      seen.insert(r.contains(c) ? cell(r[c]) : "");
    if (seen.size() > 1)
      varying.push_back(c);
    else
      fixed += fmt::format("{}{}={}", fixed.empty() ? "" : ", ", c, *seen.begin());
  }
  std::cout << e.name << (e.source.empty() ? "" : " (" + e.source + ")") << "\n";
  if (!fixed.empty())
    std::cout << "fixed: " << fixed << "\n";
  const bool labels = std::any_of(rows.begin(), rows.end(), [](const auto& r) { return r.contains("label"); });
  const bool speedup = std::any_of(rows.begin(), rows.end(), [](const auto& r) { return r.contains("speedup"); });
  const auto metrics = paper_metrics(rows);
  std::vector<std::string> headers;
  if (labels)
    headers.push_back("row");
  headers.insert(headers.end(), varying.begin(), varying.end());
  headers.insert(headers.end(), {"samples/s", "step (s)", "allreduce (ms)"});
  if (speedup)
    headers.push_back("speedup (x)");
  for (const auto& m : metrics)
    headers.insert(headers.end(), {"paper " + m, "predicted " + m, "error (%)"});
  Table t(headers);
  for (const auto& r : rows) {
    std::vector<std::string> cells;
    if (labels)
      cells.push_back(r.value("label", ""));
    for (const auto& c : varying)
      cells.push_back(r.contains(c) ? cell(r[c]) : "");
    if (r.contains("error")) {
      cells.push_back("error: " + r["error"].get<std::string>());
      cells.resize(headers.size());
      t.add_row(cells);
      continue;
    }
    cells.push_back(format_number(r["samples_per_s"].get<double>()));
    cells.push_back(format_number(r["step_time_s"].get<double>()));
    cells.push_back(format_number(r["allreduce_ms"].get<double>()));
    if (speedup)
      cells.push_back(r.contains("speedup") ? format_number(r["speedup"].get<double>(), 3) : "");
    for (const auto& m : metrics) {
      const bool has = r.contains("paper") && r["paper"].contains(m);
      cells.push_back(has ? format_number(r["paper"][m].get<double>()) : "");
      cells.push_back(has ? format_number(r["predicted"][m].get<double>()) : "");
      cells.push_back(has ? fmt::format("{:+.1f}", r["error_pct"][m].get<double>()) : "");
    }
    t.add_row(cells);
  }
  t.print(std::cout);
  const double med = median_abs_error(rows);
  if (std::isfinite(med))
    std::cout << fmt::format("median |error| vs paper: {:.1f} % over {} values\n", med, [&] {
      int n = 0;
      for (const auto& r : rows)
        n += r.contains("error_pct") ? static_cast<int>(r["error_pct"].size()) : 0;
      return n;
    }());
}

/// results.json's document for `rows` (every point's, or the finished ones' of a stopped run).
/// `complete`: every point ran (failed ones included); `done`: the points that ran without error.
nlohmann::json results_document(const Experiment& e, const std::vector<nlohmann::json>& rows, bool complete,
                                std::size_t done)
{
  nlohmann::json doc = {{"experiment", e.name}, {"description", e.description}, {"source", e.source}, {"file", e.path},
                        {"figure", e.figure},   {"complete", complete}, {"points_total", e.points.size()},
                        {"points_done", done},  {"rows", rows}};
  const double med = median_abs_error(rows);
  if (std::isfinite(med))
    doc["median_abs_error_pct"] = med;
  return doc;
}

/// The results log of this process (cli/ResultLog.hpp). Without --resume, the logs of an earlier run in `out` are
/// emptied first: this rank's own and, on rank 0, results.jsonl (under mpirun) and the logs of ranks this run does not
/// have. With --resume every earlier log stays and is appended to.
std::unique_ptr<ResultLog> open_result_log(const fs::path& out, bool resume, int rank, int size)
{
  if (!resume && rank == 0) {
    std::error_code ec;
    if (size > 1)
      fs::remove(merged_log_path(out), ec);
    for (const auto& part : rank_logs(out)) {
      bool current = false; // a rank of this run truncates its own log
      for (int r = 0; size > 1 && r < size && !current; ++r)
        current = part == rank_log_path(out, r);
      if (!current)
        fs::remove(part, ec);
    }
  }
  return std::make_unique<ResultLog>(size > 1 ? rank_log_path(out, rank) : merged_log_path(out), /*fresh=*/!resume);
}

/// For --resume: per point, the stored result of the same configuration hash (null = run it).
std::vector<nlohmann::json> stored_results(const Experiment& e, const std::vector<std::string>& hashes, const fs::path& out,
                                           bool announce)
{
  std::vector<fs::path> files = {merged_log_path(out)};
  for (const auto& part : rank_logs(out))
    files.push_back(part);
  std::size_t unreadable = 0;
  const auto stored      = read_result_logs(files, unreadable);
  std::vector<nlohmann::json> known(e.points.size());
  std::size_t found = 0;
  for (std::size_t i = 0; i < e.points.size(); ++i)
    if (const auto it = stored.find(hashes[i]); it != stored.end()) {
      known[i] = it->second;
      ++found;
    }
  if (announce)
    std::cerr << fmt::format("ccsim experiment: resuming: {} of {} points found in {}{}\n", found, e.points.size(),
                             io::printable(merged_log_path(out).string(), 200),
                             unreadable > 0 ? fmt::format(" ({} unreadable lines skipped)", unreadable) : "");
  return known;
}
} // namespace

int cmd_experiment(const std::vector<std::string>& args)
{
  po::options_description desc("ccsim experiment options");
  add_common_options(desc);
  desc.add_options()("file", po::value<std::string>()->required(), "experiment JSON (a path or a name in experiments/)")(
      "out", po::value<std::string>(), "output folder (default results/<experiment name>)")(
      "jobs", po::value<std::string>()->default_value("1"), "simulations run at once (one process each)")(
      "keep-going", po::bool_switch(), "run every point even when one fails (the run still exits 1 and lists the failures)")(
      "resume", po::bool_switch(), "reuse the results in DIR/results.jsonl of points with the same configuration hash; run the rest")(
      "no-plot", po::bool_switch(), "do not draw the figure");
  add_long_run_options(desc, /*time_limit=*/true);
  po::positional_options_description pos;
  pos.add("file", 1);
  po::variables_map vm;
  if (!parse_options("experiment", args, desc, vm, &pos, "FILE.json [options]"))
    return 0;
  const Format format    = output_format(vm);
  const bool progress    = read_long_run_options(vm);
  const int jobs         = static_cast<int>(*integer_flag(vm, "jobs", io::range::kJobs));
  const bool keep_going  = vm["keep-going"].as<bool>();
  const bool resume      = vm["resume"].as<bool>();
  const Experiment e = load_experiment(io::resolve_preset("experiments", vm["file"].as<std::string>(), "ccsim experiment"));
  const fs::path out = vm.count("out") != 0 ? fs::path(vm["out"].as<std::string>()) : fs::path("results") / e.name;
  const int rank = mpi_rank(), size = mpi_size();

  // Each point's result goes to the results log the moment it finishes (cli/ResultLog.hpp), keyed by its
  // configuration hash (cli/ConfigHash.hpp), so a stopped run keeps it and --resume skips it.
  make_output_folder(out, "--out");
  std::vector<std::string> hashes;
  for (const auto& p : e.points)
    hashes.push_back(config_hash(p.request));
  RunnerOptions options;
  options.jobs       = jobs;
  options.progress   = progress;
  options.keep_going = keep_going;
  if (resume)
    options.known = stored_results(e, hashes, out, /*announce=*/rank == 0);
  const auto log      = open_result_log(out, resume, rank, size);
  options.on_finished = [&](std::size_t i, const nlohmann::json& result) {
    nlohmann::json line = {{"point", i}, {"config_hash", hashes[i]}, {"config", resolved_request(e.points[i].request)}};
    if (result.contains("error")) {
      line["error"]      = result["error"];
      line["error_kind"] = result["error_kind"];
    } else {
      line["result"] = result;
    }
    log->append(line);
  };

  const auto outcome = run_points(e, options);
  const auto& docs   = outcome.results;
  if (rank != 0) {
    mpi_finish();
    return outcome.stopped ? stop_exception("").exit_code() : 0;
  }
  if (outcome.gathered)
    merge_rank_logs(out); // every rank's lines (and any left by an earlier, resumed run) into results.jsonl
  // Failed points: one line each on stderr. Without --keep-going the run stopped at the first and writes no results.json.
  int failed = 0, input_failures = 0;
  for (std::size_t i = 0; i < docs.size(); ++i)
    if (docs[i].is_object() && docs[i].contains("error")) {
      ++failed;
      input_failures += docs[i].value("error_kind", "") == "input";
      std::cerr << "ccsim experiment: " << io::printable(e.path, 200) << ": " << describe_point(e, i) << ": "
                << io::printable(docs[i]["error"].get<std::string>(), 400) << "\n";
    }
  const std::string log_name = io::printable(merged_log_path(out).string(), 200);
  if (outcome.stopped) {
    // Keep what finished: results.json / results.csv of the finished points (complete: false) beside the log; on a
    // time limit also print them. After a signal under mpirun the ranks did not gather: their logs hold the points.
    std::size_t done = 0;
    if (outcome.gathered) {
      Experiment finished = e;
      finished.points.clear();
      std::vector<nlohmann::json> finished_docs;
      for (std::size_t i = 0; i < docs.size(); ++i)
        if (!docs[i].is_null()) {
          finished.points.push_back(e.points[i]);
          finished_docs.push_back(docs[i]);
          done += !docs[i].contains("error");
        }
      const auto rows          = assemble_rows(finished, finished_docs);
      const nlohmann::json doc = results_document(e, rows, /*complete=*/false, done);
      write_output_file(out / "results.json", io::dump_json(doc, 2) + "\n", "--out");
      write_csv(out / "results.csv", rows);
      if (stop_signal() == 0) {
        if (format == Format::JSON)
          std::cout << io::dump_json(doc, 2) << "\n";
        else
          print_rows(finished, rows);
      }
    }
    mpi_finish();
    throw stop_exception(outcome.gathered ? fmt::format("{} of {} points done, in {} and results.json (--resume runs the rest)",
                                                        done, e.points.size(), log_name)
                                          : fmt::format("finished points are in {} (--resume runs the rest)",
                                                        io::printable((out / "results.rank*.jsonl").string(), 200)));
  }
  if (failed > 0 && !keep_going) {
    std::cerr << "ccsim experiment: stopped at the first failed point; the finished points are in " << log_name
              << " (--keep-going runs the rest)\n";
    mpi_finish();
    return input_failures == failed ? 2 : 1;
  }
  const auto rows          = assemble_rows(e, docs);
  const nlohmann::json doc = results_document(e, rows, /*complete=*/true, e.points.size() - failed);
  write_output_file(out / "results.json", io::dump_json(doc, 2) + "\n", "--out");
  write_csv(out / "results.csv", rows);

  if (format == Format::JSON)
    std::cout << io::dump_json(doc, 2) << "\n";
  else
    print_rows(e, rows);

  if (!vm["no-plot"].as<bool>() && e.figure.value("kind", "none") != "none" &&
      !run_plot_script("plot_experiment.py", (out / "results.json").string()))
    std::cerr << "ccsim experiment: warning: the figure was not drawn (needs python3-matplotlib)\n";
  if (format == Format::TABLE)
    std::cout << "wrote " << (out / "results.json").string() << ", " << (out / "results.csv").string() << "\n";
  mpi_finish();
  if (failed > 0)
    std::cerr << fmt::format("ccsim experiment: {} of {} points failed (listed above)\n", failed, docs.size());
  return failed > 0 ? 1 : 0;
}

} // namespace ccsim::cli
