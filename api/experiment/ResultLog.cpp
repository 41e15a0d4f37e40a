// JSON-lines result logs: O_APPEND and one write() per line, so concurrent appends never interleave within a line
// and a kill can tear at most the last one (which the reader skips). Every line is sealed with a checksum and checked
// again when --resume reads it.
#include "api/experiment/ResultLog.hpp"

#include "api/output/Checksum.hpp"
#include "api/output/OutputFile.hpp"
#include "api/run/ReportChecks.hpp"
#include "api/run/ReportJson.hpp"
#include "api/process/ExitCodes.hpp"
#include "api/process/WriteFully.hpp"
#include "io/JsonInput.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sys/stat.h>
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

nlohmann::json sealed_line(nlohmann::json line)
{
  line.erase("checksum");
  line["checksum"] = fmt::format("{:016x}", fnv1a64(io::dump_json(line)));
  return line;
}

ResultLog::ResultLog(const fs::path& file) : path_(file)
{
  // O_NONBLOCK: opening a FIFO for writing must not wait for a reader; fstat then refuses it.
  refuse_non_regular(file, "--out");
  fd_ = open(file.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | O_NONBLOCK, 0644);
  if (fd_ < 0)
    throw io::InputError("--out", "", fmt::format("cannot write {}: {}", io::echo(file.string()), std::strerror(errno)));
  struct stat st {};
  if (fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd_);
    fd_ = -1;
    throw io::InputError("--out", "", fmt::format("{} is not a regular file", io::echo(file.string())));
  }
  // A log that ends in a torn line (a kill or a full disk mid-write): end it, so the first line appended now starts a
  // line of its own instead of being glued to the fragment (both would be unreadable, and the point run again).
  char last = '\n';
  if (st.st_size > 0 && pread(fd_, &last, 1, st.st_size - 1) == 1 && last != '\n')
    append_raw("\n");
}

ResultLog::~ResultLog()
{
  if (fd_ >= 0)
    close(fd_);
}

void ResultLog::append(const nlohmann::json& line)
{
  append_text(io::dump_json(line));
}

void ResultLog::append_text(const std::string& line)
{
  append_raw(line + "\n");
}

void ResultLog::append_raw(const std::string& text)
{
  // The input was accepted long ago: a failure here is the disk's (full, or the file too large for a limit), exit 4.
  // The lines before stay whole; a torn last one gets its newline when the log is next opened.
  if (!write_fully(fd_, text))
    throw OutputFailed(fmt::format("cannot write {}: {} (the lines before it are kept: --resume reuses them)",
                                   io::echo(path_.string()), std::strerror(errno)));
}

namespace {
/// Why a parsed line with a result cannot be reused ("" when it can); fills `report`. The report's own checks come
/// first, so an edited value is named ("implausible: samples_per_s -1 is not positive") before the checksum that an
/// edit breaks too.
std::string line_problem(const nlohmann::json& line, SimulationReport& report)
{
  const auto result = line.find("result");
  if (result == line.end())
    return "no result";
  try {
    report = report_from_json(*result);
  } catch (const std::exception& e) { // not a whole report
    return fmt::format("incomplete result: {}", e.what());
  }
  if (const std::string problem = check_report(report); !problem.empty())
    return "implausible: " + problem;
  const auto config = line.find("config");
  if (config == line.end() || !config->is_object())
    return "no config";
  if (fmt::format("{:016x}", fnv1a64(io::dump_json(*config))) != line["config_hash"].get<std::string>())
    return "config hash mismatch";
  const auto sum = line.find("checksum");
  if (sum == line.end())
    return "no checksum";
  if (!sum->is_string() || *sum != sealed_line(line)["checksum"])
    return "checksum mismatch";
  return "";
}

/// The claimed config hash of a line that is a JSON object naming one, else "".
std::string claimed_hash(const nlohmann::json& line)
{
  if (!line.is_object())
    return "";
  const auto h = line.find("config_hash");
  return h != line.end() && h->is_string() ? h->get<std::string>() : "";
}
} // namespace

StoredResults read_result_logs(const std::vector<fs::path>& files)
{
  StoredResults out;
  for (const auto& file : files) {
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(file, ec)) && !fs::exists(file, ec))
      continue;
    refuse_non_regular(file, "--resume");
    std::ifstream in(file);
    std::size_t number = 0;
    for (std::string text; std::getline(in, text);) {
      ++number;
      if (text.empty())
        continue;
      // Strictly, through the one JSON reader: a key given twice is an edit, not a line ccsim wrote.
      nlohmann::json line;
      try {
        line = io::parse_json_text(text, fmt::format("{}: line {}", file.string(), number));
      } catch (const io::InputError& e) {
        // A problem at a JSON pointer (a key given twice) is in valid JSON text, which says which point it claims;
        // anything else (torn by a kill, truncated, garbage, too deep) cannot be read at all.
        const auto loose = e.pointer().empty() ? nlohmann::json() : nlohmann::json::parse(text, nullptr, false);
        if (const std::string hash = claimed_hash(loose); !hash.empty())
          out.rejected.push_back({hash, "invalid line: " + e.pointer() + ": " + e.problem()});
        else
          ++out.unreadable;
        continue;
      }
      const std::string hash = claimed_hash(line);
      if (hash.empty()) {
        ++out.unreadable;
        continue;
      }
      if (line.contains("error"))
        continue; // a failed point runs again
      StoredLine stored;
      if (const std::string problem = line_problem(line, stored.report); !problem.empty()) {
        out.rejected.push_back({hash, problem});
        continue;
      }
      stored.line = std::move(line);
      out.by_hash[hash].push_back(std::move(stored));
    }
  }
  return out;
}

void merge_rank_logs(const fs::path& dir)
{
  const auto parts = rank_logs(dir);
  if (parts.empty())
    return;
  ResultLog merged(merged_log_path(dir));
  for (const auto& part : parts) {
    refuse_non_regular(part, "--out");
    std::ifstream in(part);
    for (std::string text; std::getline(in, text);) {
      // Whole lines only: a line torn by a kill would corrupt the line after it in the merged file. Copied as they
      // are, so their checksums still say whether they were touched.
      const auto line = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
      if (line.is_object())
        merged.append_text(text);
    }
  }
  // Removed only once every line is in results.jsonl: a kill during the merge leaves duplicates, never losses.
  for (const auto& part : parts) {
    std::error_code ec;
    fs::remove(part, ec);
  }
}

} // namespace ccsim::api
