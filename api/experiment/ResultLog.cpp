// JSON-lines result logs: O_APPEND and one write() per line, so concurrent appends never interleave within a line
// and a kill can tear at most the last one (which the reader skips).
#include "api/experiment/ResultLog.hpp"

#include "api/run/ReportJson.hpp"
#include "api/output/OutputFile.hpp"
#include "api/process/WriteFully.hpp"
#include "sim/io/JsonInput.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <unistd.h>

namespace ccsim::api {

namespace fs = std::filesystem;

fs::path merged_log_path(const fs::path& dir)
{
  return dir / "results.jsonl";
}

fs::path rank_log_path(const fs::path& dir, int rank)
{
  return dir / fmt::format("results.rank{}.jsonl", rank);
}

std::vector<fs::path> rank_logs(const fs::path& dir)
{
  // results.rank<1-6 digits>.jsonl (matched by hand: std::regex trips GCC 12's -Wmaybe-uninitialized in the
  // sanitizer build, inside libstdc++).
  const std::string prefix = "results.rank", suffix = ".jsonl";
  std::map<int, fs::path> by_rank;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string file = it->path().filename().string();
    if (file.size() <= prefix.size() + suffix.size() || file.rfind(prefix, 0) != 0 ||
        file.compare(file.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    const std::string digits = file.substr(prefix.size(), file.size() - prefix.size() - suffix.size());
    if (digits.size() > 6 || digits.find_first_not_of("0123456789") != std::string::npos)
      continue;
    by_rank[static_cast<int>(io::parse_integer(digits, io::Range{0, 999999}, "rank log"))] = it->path();
  }
  std::vector<fs::path> out;
  for (const auto& [_, p] : by_rank)
    out.push_back(p);
  return out;
}

ResultLog::ResultLog(const fs::path& file, bool fresh) : path_(file)
{
  fd_ = open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (fresh ? O_TRUNC : 0), 0644);
  if (fd_ < 0)
    throw io::InputError("--out", "", fmt::format("cannot write {}: {}", io::echo(file.string()), std::strerror(errno)));
}

ResultLog::~ResultLog()
{
  if (fd_ >= 0)
    close(fd_);
}

void ResultLog::append(const nlohmann::json& line)
{
  if (!write_fully(fd_, io::dump_json(line) + "\n"))
    throw io::InputError("--out", "", fmt::format("cannot write {}: {}", io::echo(path_.string()), std::strerror(errno)));
}

std::map<std::string, SimulationReport> read_result_logs(const std::vector<fs::path>& files, std::size_t& unreadable)
{
  std::map<std::string, SimulationReport> out;
  for (const auto& file : files) {
    std::ifstream in(file);
    for (std::string text; std::getline(in, text);) {
      if (text.empty())
        continue;
      const auto line = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
      if (!line.is_object() || !line.contains("config_hash") || !line["config_hash"].is_string()) {
        ++unreadable;
        continue;
      }
      if (line.contains("error"))
        continue; // a failed point runs again
      if (!line.contains("result")) {
        ++unreadable;
        continue;
      }
      try {
        out[line["config_hash"].get<std::string>()] = report_from_json(line["result"]);
      } catch (const std::invalid_argument&) { // not a whole report (a hand edit)
        ++unreadable;
      }
    }
  }
  return out;
}

void merge_rank_logs(const fs::path& dir)
{
  const auto parts = rank_logs(dir);
  if (parts.empty())
    return;
  ResultLog merged(merged_log_path(dir), /*fresh=*/false);
  for (const auto& part : parts) {
    std::ifstream in(part);
    for (std::string text; std::getline(in, text);) {
      // Whole lines only: a line torn by a kill would corrupt the line after it in the merged file.
      const auto line = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
      if (line.is_object())
        merged.append(line);
    }
  }
  // Removed only once every line is in results.jsonl: a kill during the merge leaves duplicates, never losses.
  for (const auto& part : parts) {
    std::error_code ec;
    fs::remove(part, ec);
  }
}

} // namespace ccsim::api
