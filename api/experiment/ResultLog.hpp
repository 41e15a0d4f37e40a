#pragma once
// An experiment's results as JSON lines, one per point, appended the moment the point finishes, so a run stopped
// half-way (a signal, --time-limit, a crash of ccsim itself) keeps every finished point and `--resume` can skip them.
//
//   DIR/results.jsonl            one process, or the merged file after an mpirun run
//   DIR/results.rank<R>.jsonl    rank R's own points under mpirun; rank 0 appends them to results.jsonl at the end
//
// A line: {"point": i (0-based, in file order), "config_hash": "<16 hex>", "config": <resolved request>,
//          "result": <the simulate --format json document>, "checksum": "<16 hex>"}  or, for a failed point, "error"
// and "error_kind" instead of "result". (api/experiment/ConfigHash.hpp defines the hash and the resolved request.)
// The checksum is FNV-1a 64 of the line's compact JSON text without "checksum" (keys sorted, as io::dump_json writes
// them): a line edited by hand, or damaged, no longer matches it.

#include "api/run/SimulationReport.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace ccsim::api {

std::filesystem::path merged_log_path(const std::filesystem::path& dir);
std::filesystem::path rank_log_path(const std::filesystem::path& dir, int rank);
/// Every DIR/results.rank<R>.jsonl present, by rank.
std::vector<std::filesystem::path> rank_logs(const std::filesystem::path& dir);

/// `line` with its "checksum" set (replacing any it had).
nlohmann::json sealed_line(nlohmann::json line);

/// An open log, appended to one line at a time.
class ResultLog {
public:
  /// Opens `file` for appending, creating it; a file that ends in a torn line gets its newline first. Failure, or a
  /// `file` that is not a regular file (a FIFO would block): io::InputError("--out", ...).
  explicit ResultLog(const std::filesystem::path& file);
  ~ResultLog();
  ResultLog(const ResultLog&)            = delete;
  ResultLog& operator=(const ResultLog&) = delete;
  /// Appends `line` (sealed_line's, or one line of another log as it was) and a newline with one write(): a kill
  /// leaves whole lines, plus at most one torn last line. A failed write (a full disk) is OutputFailed.
  void append(const nlohmann::json& line);
  void append_text(const std::string& line);
  const std::filesystem::path& path() const { return path_; }

private:
  void append_raw(const std::string& text); // one write() of `text`, or OutputFailed (exit 4)
  std::filesystem::path path_;
  int fd_ = -1;
};

/// A line that passed every check: its JSON as written and its report.
struct StoredLine {
  nlohmann::json line;
  SimulationReport report;
};

/// A line that names a configuration hash but fails a check; `reason` is short ("checksum mismatch",
/// "implausible: samples_per_s -1 is not positive").
struct RejectedLine {
  std::string config_hash;
  std::string reason;
};

/// What the logs hold for --resume.
struct StoredResults {
  std::map<std::string, std::vector<StoredLine>> by_hash; // lines with a result that passed every check, file order
  std::vector<RejectedLine> rejected;
  std::size_t unreadable = 0; // lines that are not a JSON object naming a config hash (torn by a kill, garbage)
};

/// Reads and checks every line of `files` (missing files are skipped; a path that is not a regular file is an
/// io::InputError("--resume", ...)). A line with a result is kept when its result reads back as a whole report, that
/// report passes check_report (api/run/ReportChecks.hpp), its "config" hashes to its "config_hash" and its checksum
/// matches (the first failure is the reason given). Lines of failed points are neither kept nor rejected: the point runs again.
StoredResults read_result_logs(const std::vector<std::filesystem::path>& files);

/// Rank 0 after every rank finished: appends each rank log's whole lines to results.jsonl, as they are, then removes
/// the rank logs.
void merge_rank_logs(const std::filesystem::path& dir);

} // namespace ccsim::api
