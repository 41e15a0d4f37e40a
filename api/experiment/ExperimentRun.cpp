// An experiment run with its checks, folder lock, results log, resume and result files; see ExperimentRun.hpp.
#include "api/experiment/ExperimentRun.hpp"

#include "api/experiment/ConfigHash.hpp"
#include "api/experiment/ExperimentRunner.hpp"
#include "api/experiment/Mpi.hpp"
#include "api/experiment/PointChecks.hpp"
#include "api/experiment/ResultLog.hpp"
#include "api/experiment/ResultsCsv.hpp"
#include "api/output/FolderLock.hpp"
#include "api/output/OutputFile.hpp"
#include "api/process/ExitCodes.hpp"
#include "api/run/ReportJson.hpp"
#include "io/JsonInput.hpp"

#include <fmt/format.h>

#include <exception>
#include <memory>

namespace ccsim::api {

namespace fs = std::filesystem;

namespace {
/// Every point resolved before anything runs or is written. Without keep_going the first bad point is the error;
/// with it, each bad point is known as a failed one and not run.
std::vector<std::optional<PointResult>> check_points(const Experiment& e, bool keep_going)
{
  const auto errors = point_input_errors(e);
  std::vector<std::optional<PointResult>> known(e.points.size());
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < errors.size(); ++i) {
    if (errors[i].empty())
      continue;
    if (bad++ == 0)
      first = i;
    known[i] = PointResult{std::nullopt, errors[i], "input"};
  }
  if (bad > 0 && !keep_going)
    throw io::InputError(e.path, "",
                         fmt::format("{}: {}{}", describe_point(e, first), errors[first],
                                     bad == 1 ? ""
                                              : fmt::format(" ({} more of the {} points cannot run; --keep-going runs "
                                                            "the others)",
                                                            bad - 1, e.points.size())));
  return known;
}

/// Rank 0 locks `out` (and, with `fresh`, removes the earlier results while it holds the lock, before any rank opens
/// its log); every rank learns whether it did. The lock lives until the returned object is destroyed.
std::unique_ptr<FolderLock> lock_folder(const fs::path& out, bool fresh, int rank)
{
  std::unique_ptr<FolderLock> lock;
  std::exception_ptr error;
  if (rank == 0) {
    try {
      lock = std::make_unique<FolderLock>(out, "--out");
      if (fresh) {
        std::error_code ec;
        for (const auto& f : rank_logs(out))
          fs::remove(f, ec);
        for (const char* name : {"results.jsonl", "results.json", "results.csv"})
          fs::remove(out / name, ec);
      }
    } catch (const io::InputError&) {
      error = std::current_exception();
    }
  }
  if (!mpi_rank0_flag(error == nullptr)) {
    if (error)
      std::rethrow_exception(error);
    throw io::InputError("--out", "", "rank 0 could not lock the folder (its error says why)");
  }
  return lock;
}

/// Why a stored report cannot stand for `request` although its configuration hash says so ("" when it can): the
/// hash guards every field, and this guards the hash (a line whose config and result were pasted from another point).
std::string mismatch(const SimulateRequest& request, const SimulationReport& report)
{
  const auto& c = report.config;
  if (c.algorithm != request.algorithm)
    return fmt::format("algorithm {}, not {}", c.algorithm, request.algorithm);
  if (c.gpus != request.gpus)
    return fmt::format("{} GPUs, not {}", c.gpus, request.gpus);
  if (report.fidelity != request.fidelity)
    return fmt::format("fidelity {}, not {}", report.fidelity, request.fidelity);
  if ((request.global_batch && c.global_batch != *request.global_batch) ||
      (request.micro_batch && c.micro_batch != *request.micro_batch) || (request.tp && c.tp != *request.tp) ||
      (request.pp && c.pp != *request.pp))
    return "another batch or parallel shape";
  return "";
}

/// A stored result without its wall-clock seconds, the one field two runs of one configuration may differ in.
nlohmann::json without_wall(nlohmann::json result)
{
  if (result.contains("sim"))
    result["sim"].erase("wall_s");
  return result;
}

/// What --resume keeps: per point, the stored line it reuses (empty = run it).
struct Resumed {
  std::vector<std::optional<nlohmann::json>> lines;
  std::vector<std::optional<SimulationReport>> reports;
};

/// For --resume: per point, the checked stored result of the same configuration hash. Lines that fail a check (and
/// would have been used) make their point run again; the note says how many and why.
Resumed stored_results(const Experiment& e, const std::vector<std::string>& hashes, const fs::path& out,
                       const std::function<void(const std::string&)>& note)
{
  std::vector<fs::path> files = {merged_log_path(out)};
  for (const auto& part : rank_logs(out))
    files.push_back(part);
  const auto stored = read_result_logs(files);
  std::map<std::string, std::string> rejected; // config hash -> why its last rejected line was rejected
  for (const auto& r : stored.rejected)
    rejected[r.config_hash] = r.reason;

  Resumed out_;
  out_.lines.resize(e.points.size());
  out_.reports.resize(e.points.size());
  std::size_t found = 0, rerun = 0;
  std::vector<std::pair<std::string, std::size_t>> reasons; // in order of first appearance
  const auto count_reason = [&](const std::string& why) {
    ++rerun;
    for (auto& [r, n] : reasons)
      if (r == why) {
        ++n;
        return;
      }
    reasons.emplace_back(why, 1);
  };
  for (std::size_t i = 0; i < e.points.size(); ++i) {
    std::string why;
    const StoredLine* use = nullptr;
    if (const auto it = stored.by_hash.find(hashes[i]); it != stored.by_hash.end()) {
      for (const auto& line : it->second) {
        if (const auto wrong = mismatch(e.points[i].request, line.report); !wrong.empty()) {
          why = "result of another configuration: " + wrong;
          continue;
        }
        // One configuration has one answer: two checked lines that disagree cannot both be it.
        if (use != nullptr && without_wall(use->line["result"]) != without_wall(line.line["result"])) {
          why = "conflicting duplicate lines";
          use = nullptr;
          break;
        }
        use = &line;
      }
    }
    if (use == nullptr && why.empty())
      if (const auto r = rejected.find(hashes[i]); r != rejected.end())
        why = r->second;
    if (use != nullptr) {
      out_.lines[i]   = use->line;
      out_.reports[i] = use->report;
      ++found;
    } else if (!why.empty()) {
      count_reason(why);
    }
  }
  if (note) {
    std::string detail;
    for (const auto& [r, n] : reasons)
      detail += fmt::format("{}{} {}", detail.empty() ? "" : ", ", n, r);
    note(fmt::format("resuming: {} of {} points found in {}{}{}", found, e.points.size(),
                     io::printable(merged_log_path(out).string(), 200),
                     rerun > 0 ? fmt::format("; {} re-run ({})", rerun, io::printable(detail, 600)) : "",
                     stored.unreadable > 0 ? fmt::format(" ({} unreadable lines skipped)", stored.unreadable) : ""));
  }
  return out_;
}

/// A point's results line (sealed: api/experiment/ResultLog.hpp).
nlohmann::json log_line(const Experiment& e, const std::vector<std::string>& hashes, std::size_t i,
                        const PointResult& result)
{
  nlohmann::json line = {{"point", i}, {"config_hash", hashes[i]}, {"config", resolved_request(e.points[i].request)}};
  if (result.failed()) {
    line["error"]      = result.error;
    line["error_kind"] = result.error_kind;
  } else {
    line["result"] = to_json(*result.report);
  }
  return sealed_line(std::move(line));
}

/// Whether DIR/results.json holds an earlier run's complete results (a stopped run must not replace them).
bool complete_results_present(const fs::path& out)
{
  try {
    const auto doc = io::read_json_file((out / "results.json").string());
    return doc.is_object() && doc.value("complete", false) == true;
  } catch (const io::InputError&) {
    return false; // absent or unreadable: nothing worth keeping
  }
}

/// Writes results.json and results.csv for `rows`, each replaced whole.
void write_results(const fs::path& out, const nlohmann::json& doc, const std::vector<ExperimentRow>& rows)
{
  write_output_file(out / "results.json", io::dump_json(doc, 2) + "\n", "--out");
  write_results_csv(out / "results.csv", rows);
}

/// A stopped run keeps what finished: results.json / results.csv of the finished points (complete: false) beside the
/// log, unless they would replace an earlier run's complete ones. After a signal under mpirun the ranks did not
/// gather: their logs hold the points.
void finish_stopped(const Experiment& e, const fs::path& out, ExperimentOutcome& o)
{
  if (!o.gathered)
    return;
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
  if (complete_results_present(out)) {
    o.kept_previous = true;
    return;
  }
  write_results(out, o.document, o.rows);
  o.written = true;
}

/// After a complete run the log becomes this run's: one line per point in point order (a resumed point keeps its
/// stored line), and the rank logs of an earlier stopped mpirun run, whose points are in it or superseded, go.
void rewrite_log(const Experiment& e, const std::vector<std::string>& hashes, const Resumed& resumed,
                 const std::vector<PointResult>& results, const fs::path& out)
{
  std::string text;
  for (std::size_t i = 0; i < e.points.size(); ++i)
    text += io::dump_json(resumed.lines.size() > i && resumed.lines[i] ? *resumed.lines[i]
                                                                         : log_line(e, hashes, i, results[i])) +
            "\n";
  write_output_file(merged_log_path(out), text, "--out");
  std::error_code ec;
  for (const auto& part : rank_logs(out))
    fs::remove(part, ec);
}
/// Runs `write`, a write of this run's results after every point ran: a failure there (a full disk, a folder made
/// read-only) is OutputFailed (exit 4), not bad input, and says where the finished points are.
template <class F>
void writing_results(const fs::path& out, F write)
{
  try {
    write();
  } catch (const io::InputError& e) {
    throw OutputFailed(fmt::format("{} (the finished points are in {}, if it could be written: --resume reuses them)",
                                   e.what(), io::printable(merged_log_path(out).string(), 200)));
  }
}

/// Makes the --out folder again when it went during the run (removed by hand or by a cleaner): every finished point
/// is in memory and is written there again, the log included. Returns whether it was made again.
bool remade_folder(const fs::path& out, const std::function<void(const std::string&)>& on_note)
{
  std::error_code ec;
  if (fs::is_directory(out, ec))
    return false;
  writing_results(out, [&] { make_output_folder(out, "--out"); });
  if (on_note)
    on_note(fmt::format("warning: {} was removed during the run: made again, and every finished point written to it "
                        "from memory",
                        io::printable(out.string(), 200)));
  return true;
}

/// The log of a stopped run whose folder was made again: the finished points' lines, from memory.
void rewrite_stopped_log(const Experiment& e, const std::vector<std::string>& hashes,
                         const std::vector<PointResult>& results, const fs::path& out)
{
  std::string text;
  for (std::size_t i = 0; i < results.size(); ++i)
    if (results[i].ran())
      text += io::dump_json(log_line(e, hashes, i, results[i])) + "\n";
  write_output_file(merged_log_path(out), text, "--out");
}
} // namespace

ExperimentOutcome run_experiment(const Experiment& e, const ExperimentOptions& opt)
{
  const int rank = mpi_rank(), size = mpi_size();
  const fs::path& out = opt.out;
  RunnerOptions options;
  options.known = check_points(e, opt.keep_going);
  make_output_folder(out, "--out");
  const auto lock = lock_folder(out, opt.fresh, rank);

  // Each point's result goes to the results log the moment it finishes, keyed by its configuration hash
  // (api/experiment/ConfigHash.hpp), so a stopped run keeps it and --resume skips it.
  std::vector<std::string> hashes;
  for (const auto& p : e.points)
    hashes.push_back(config_hash(p.request));
  options.jobs        = opt.jobs;
  options.keep_going  = opt.keep_going;
  options.on_progress = opt.on_progress;
  Resumed resumed;
  if (opt.resume) {
    resumed = stored_results(e, hashes, out, rank == 0 ? opt.on_note : nullptr);
    for (std::size_t i = 0; i < e.points.size(); ++i)
      if (resumed.reports[i])
        options.known[i] = PointResult{resumed.reports[i], "", ""};
  }
  // Appended to, never emptied: an earlier run's lines stay until this run completes.
  ResultLog log(size > 1 ? rank_log_path(out, rank) : merged_log_path(out));
  options.on_finished = [&](std::size_t i, const PointResult& result) { log.append(log_line(e, hashes, i, result)); };

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
  const bool remade = remade_folder(out, opt.on_note);
  if (o.stopped || (o.failed > 0 && !opt.keep_going)) {
    writing_results(out, [&] {
      if (remade)
        rewrite_stopped_log(e, hashes, o.results, out);
      if (o.stopped)
        finish_stopped(e, out, o);
    });
    return o; // stopped at the first failed point: no results.json
  }
  o.shown    = e;
  o.done     = e.points.size() - o.failed;
  o.rows     = assemble_rows(e, o.results);
  o.document = results_document(e, o.rows, /*complete=*/true, o.done);
  writing_results(out, [&] {
    write_results(out, o.document, o.rows);
    o.written = true;
    rewrite_log(e, hashes, resumed, o.results, out);
  });
  return o;
}

} // namespace ccsim::api
