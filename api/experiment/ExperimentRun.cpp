// An experiment run with its results log, resume and result files; see ExperimentRun.hpp.
#include "api/experiment/ExperimentRun.hpp"

#include "api/experiment/ConfigHash.hpp"
#include "api/experiment/ExperimentRunner.hpp"
#include "api/experiment/Mpi.hpp"
#include "api/experiment/ResultLog.hpp"
#include "api/output/OutputFile.hpp"
#include "api/run/ReportJson.hpp"
#include "sim/io/JsonInput.hpp"

#include <fmt/format.h>

#include <memory>

namespace ccsim::api {

namespace fs = std::filesystem;

namespace {
/// The results log of this process (api/experiment/ResultLog.hpp). Without --resume, the logs of an earlier run in
/// `out` are emptied first: this rank's own and, on rank 0, results.jsonl (under mpirun) and the logs of ranks this run
/// does not have. With --resume every earlier log stays and is appended to.
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

/// For --resume: per point, the stored result of the same configuration hash (empty = run it).
std::vector<std::optional<SimulationReport>> stored_results(const Experiment& e, const std::vector<std::string>& hashes,
                                                            const fs::path& out,
                                                            const std::function<void(const std::string&)>& note)
{
  std::vector<fs::path> files = {merged_log_path(out)};
  for (const auto& part : rank_logs(out))
    files.push_back(part);
  std::size_t unreadable = 0;
  const auto stored      = read_result_logs(files, unreadable);
  std::vector<std::optional<SimulationReport>> known(e.points.size());
  std::size_t found = 0;
  for (std::size_t i = 0; i < e.points.size(); ++i)
    if (const auto it = stored.find(hashes[i]); it != stored.end()) {
      known[i] = it->second;
      ++found;
    }
  if (note)
    note(fmt::format("resuming: {} of {} points found in {}{}", found, e.points.size(),
                     io::printable(merged_log_path(out).string(), 200),
                     unreadable > 0 ? fmt::format(" ({} unreadable lines skipped)", unreadable) : ""));
  return known;
}

/// Writes results.json and results.csv for `rows`.
void write_results(const fs::path& out, const nlohmann::json& doc, const std::vector<nlohmann::json>& rows)
{
  write_output_file(out / "results.json", io::dump_json(doc, 2) + "\n", "--out");
  write_results_csv(out / "results.csv", rows);
}
} // namespace

ExperimentOutcome run_experiment(const Experiment& e, const ExperimentOptions& opt)
{
  const int rank = mpi_rank(), size = mpi_size();
  const fs::path& out = opt.out;
  // Each point's result goes to the results log the moment it finishes, keyed by its configuration hash
  // (api/experiment/ConfigHash.hpp), so a stopped run keeps it and --resume skips it.
  make_output_folder(out, "--out");
  std::vector<std::string> hashes;
  for (const auto& p : e.points)
    hashes.push_back(config_hash(p.request));
  RunnerOptions options;
  options.jobs        = opt.jobs;
  options.keep_going  = opt.keep_going;
  options.on_progress = opt.on_progress;
  if (opt.resume)
    options.known = stored_results(e, hashes, out, rank == 0 ? opt.on_note : nullptr);
  const auto log      = open_result_log(out, opt.resume, rank, size);
  options.on_finished = [&](std::size_t i, const PointResult& result) {
    nlohmann::json line = {{"point", i}, {"config_hash", hashes[i]}, {"config", resolved_request(e.points[i].request)}};
    if (result.failed()) {
      line["error"]      = result.error;
      line["error_kind"] = result.error_kind;
    } else {
      line["result"] = to_json(*result.report);
    }
    log->append(line);
  };

  auto run = run_points(e, options);
  ExperimentOutcome o;
  o.rank0    = rank == 0;
  o.stopped  = run.stopped;
  o.gathered = run.gathered;
  o.log_name = io::printable(merged_log_path(out).string(), 200);
  o.results  = std::move(run.results);
  if (rank != 0)
    return o;
  if (o.gathered)
    merge_rank_logs(out); // every rank's lines (and any left by an earlier, resumed run) into results.jsonl
  for (const auto& r : o.results)
    if (r.failed()) {
      ++o.failed;
      o.input_failures += r.error_kind == "input";
    }
  if (o.stopped) {
    // Keep what finished: results.json / results.csv of the finished points (complete: false) beside the log. After a
    // signal under mpirun the ranks did not gather: their logs hold the points.
    if (!o.gathered)
      return o;
    o.shown = e;
    o.shown.points.clear();
    std::vector<PointResult> finished;
    for (std::size_t i = 0; i < o.results.size(); ++i)
      if (o.results[i].ran()) {
        o.shown.points.push_back(e.points[i]);
        finished.push_back(o.results[i]);
        o.done += !o.results[i].failed();
      }
    o.rows     = assemble_rows(o.shown, finished);
    o.document = results_document(e, o.rows, /*complete=*/false, o.done);
    write_results(out, o.document, o.rows);
    o.written = true;
    return o;
  }
  if (o.failed > 0 && !opt.keep_going)
    return o; // stopped at the first failed point: no results.json
  o.shown    = e;
  o.done     = e.points.size() - o.failed;
  o.rows     = assemble_rows(e, o.results);
  o.document = results_document(e, o.rows, /*complete=*/true, o.done);
  write_results(out, o.document, o.rows);
  o.written = true;
  return o;
}

} // namespace ccsim::api
