#include "api/calibration/NcclTestsText.hpp"

#include "sim/io/JsonInput.hpp"
#include "sim/io/Limits.hpp"

#include <fmt/format.h>

#include <sstream>

namespace ccsim::api {

namespace {
std::vector<std::string> tokens_of(const std::string& line)
{
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string t; in >> t;)
    out.push_back(t);
  return out;
}
} // namespace

NcclTestsTable read_nccl_tests(const std::string& path)
{
  std::istringstream in(io::read_input_file(path, "nccl-tests text file"));
  NcclTestsTable table;
  int rank_lines  = 0;
  bool in_block   = false, block_done = false;
  std::size_t number = 0;
  for (std::string line; std::getline(in, line);) {
    const std::string where = fmt::format("line {}", ++number);
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos)
      continue;
    if (io::printable(line, line.size() + 1) != line)
      throw io::InputError(path, where, "holds control characters or invalid UTF-8");
    if (line.front() == '#') {
      if (in_block)
        block_done = true; // a second header after rows: a second block, which is not read
      const auto t = tokens_of(line.substr(1));
      if (t.size() >= 2 && t[0] == "Rank")
        ++rank_lines;
      if (line.rfind("# ccsim collective: ", 0) == 0 && !block_done) {
        const auto rest = tokens_of(line.substr(20));
        if (!rest.empty())
          table.op = rest[0];
        const auto open = line.find(" (");
        const auto after = open == std::string::npos ? std::vector<std::string>{} : tokens_of(line.substr(open + 2));
        if (open != std::string::npos && after.empty())
          throw io::InputError(path, where, "expected the rank count after '('");
        if (!after.empty())
          table.ranks = static_cast<int>(
              io::parse_integer(after.front(), io::Range{2, io::range::kGpus.hi}, path + ": " + where + ": ranks"));
      }
      continue;
    }
    if (block_done)
      continue;
    const auto t = tokens_of(line);
    // size count type redop root time algbw busbw #wrong [time algbw busbw #wrong]
    if (t.size() != 9 && t.size() != 13)
      throw io::InputError(path, where,
                           fmt::format("expected nccl-tests' 13 columns (size count type redop root, then time algbw "
                                       "busbw #wrong out-of-place and in-place), got {}: {}",
                                       t.size(), io::echo(line)));
    if (table.rows.size() == io::limits::kMaxNcclTestsRows)
      throw io::InputError(path, where, fmt::format("more than {} rows: the limit (nccl-tests prints one row per size)",
                                                    io::limits::kMaxNcclTestsRows));
    NcclTestsRow row;
    row.bytes = static_cast<std::uint64_t>(
        io::parse_integer(t[0], io::range::kCollectiveBytes, path + ": " + where + ": size"));
    row.time_us = io::parse_number(t[5], io::Range{0, 1e12, true}, path + ": " + where + ": out-of-place time (us)");
    if (!table.rows.empty() && row.bytes <= table.rows.back().bytes)
      throw io::InputError(path, where, "sizes must grow from row to row");
    table.rows.push_back(row);
    in_block = true;
  }
  if (table.rows.empty())
    throw io::InputError(path, "", "no nccl-tests rows (size count type redop root time ...)");
  if (!table.ranks && rank_lines >= 2)
    table.ranks = rank_lines;
  return table;
}

} // namespace ccsim::api
