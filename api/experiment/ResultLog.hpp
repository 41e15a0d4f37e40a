#pragma once
// An experiment's results as JSON lines, one per point, appended the moment the point finishes, so a run stopped
// half-way (a signal, --time-limit, a crash of ccsim itself) keeps every finished point and `--resume` can skip them.
//
//   DIR/results.jsonl            one process, or the merged file after an mpirun run
//   DIR/results.rank<R>.jsonl    rank R's own points under mpirun; rank 0 appends them to results.jsonl at the end
//
// A line: {"point": i (0-based, in file order), "config_hash": "<16 hex>", "config": <resolved request>,
//          "result": <the simulate --format json document>}  or, for a failed point, "error" and "error_kind".
// (api/experiment/ConfigHash.hpp defines the hash and the resolved request.)

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

/// An open log, appended to one line at a time.
class ResultLog {
public:
  /// Opens `file` for appending, creating it; `fresh` empties it first. Failure: io::InputError("--out", ...).
  ResultLog(const std::filesystem::path& file, bool fresh);
  ~ResultLog();
  ResultLog(const ResultLog&)            = delete;
  ResultLog& operator=(const ResultLog&) = delete;
  /// Appends `line` and a newline with one write(): a kill leaves whole lines, plus at most one torn last line.
  void append(const nlohmann::json& line);
  const std::filesystem::path& path() const { return path_; }

private:
  std::filesystem::path path_;
  int fd_ = -1;
};

/// What --resume can reuse: config hash -> report, from the lines of `files` that are whole and succeeded (the last
/// line of a hash wins; missing files are skipped). `unreadable` counts lines that are not a JSON object with a
/// config_hash and a whole report (a line torn by a kill, a hand edit).
std::map<std::string, SimulationReport> read_result_logs(const std::vector<std::filesystem::path>& files,
                                                       std::size_t& unreadable);

/// Rank 0 after every rank finished: appends each rank log's whole lines to results.jsonl, then removes the rank logs.
void merge_rank_logs(const std::filesystem::path& dir);

} // namespace ccsim::api
