// nccl-tests text, verbatim; see NcclTestsText.hpp.
#include "api/calibration/NcclTestsText.hpp"

#include "io/JsonInput.hpp"
#include "io/Limits.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>

namespace ccsim::api {

namespace {
// nccl-tests' type and reduction names (src/common.cu test_typenames, test_opnames; "none" for the collectives that do
// not reduce), the signature of a row among the other lines of a log.
constexpr std::array<std::string_view, 14> kTypes = {"int8",   "uint8",    "int32",  "uint32", "int64",
                                                     "uint64", "half",     "float",  "double", "bfloat16",
                                                     "f8e4m3", "f8e5m2",   "fp8_e4m3", "fp8_e5m2"};
constexpr std::array<std::string_view, 8> kRedops = {"sum", "prod", "max", "min", "avg", "mulsum", "premulsum", "none"};

template <std::size_t N>
bool one_of(std::string_view word, const std::array<std::string_view, N>& names)
{
  return std::find(names.begin(), names.end(), word) != names.end();
}

/// The words of a line, split on blanks, as views into it (no copy).
void split(std::string_view line, std::vector<std::string_view>& out)
{
  out.clear();
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
      ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t')
      ++i;
    if (i > start)
      out.push_back(line.substr(start, i - start));
  }
}

/// The op a table shows: busbw / algbw of its fastest row is nccl-tests' bus factor, and the reduction and root
/// columns tell apart the collectives that share one.
std::optional<std::string> op_of_table(const std::vector<NcclTestsRow>& rows, std::string& how)
{
  const auto best = std::max_element(rows.begin(), rows.end(), [](const NcclTestsRow& a, const NcclTestsRow& b) {
    return a.algbw_gbytes_per_s < b.algbw_gbytes_per_s;
  });
  if (best->algbw_gbytes_per_s <= 0)
    return std::nullopt;
  const double ratio = best->busbw_gbytes_per_s / best->algbw_gbytes_per_s;
  const std::string seen = fmt::format("busbw / algbw = {:.4g} at {} B, redop {}, root {}", ratio, best->bytes,
                                       best->redop, best->root);
  if (ratio > 1.02) {
    how = "inferred from the table (" + seen + ": only all_reduce's factor exceeds 1)";
    return "all_reduce";
  }
  if (std::abs(ratio - 1) <= 0.02 && best->root == -1) {
    how = "inferred from the table (" + seen + ": sendrecv; broadcast and reduce print a root)";
    return "sendrecv";
  }
  if (ratio < 0.98 && best->redop == "none") {
    how = "inferred from the table (" + seen + ": all_gather; alltoall_perf prints the same columns, --op alltoall "
                                               "if it was that)";
    return "all_gather";
  }
  if (ratio < 0.98) {
    how = "inferred from the table (" + seen + ": a reduction with factor below 1 is reduce_scatter)";
    return "reduce_scatter";
  }
  return std::nullopt;
}

/// The rank count a table shows when the header does not: n from the bus factor of `op` at the fastest row, where the
/// printed bandwidths pin it to within 0.15 of a whole number.
std::optional<int> ranks_of_table(const std::vector<NcclTestsRow>& rows, const std::string& op, std::string& how)
{
  const auto best = std::max_element(rows.begin(), rows.end(), [](const NcclTestsRow& a, const NcclTestsRow& b) {
    return a.algbw_gbytes_per_s < b.algbw_gbytes_per_s;
  });
  if (best->algbw_gbytes_per_s < 1)
    return std::nullopt;
  const double ratio = best->busbw_gbytes_per_s / best->algbw_gbytes_per_s;
  double n           = 0;
  if (op == "all_reduce" && ratio < 2)
    n = 2 / (2 - ratio); // 2(n-1)/n = ratio
  else if ((op == "all_gather" || op == "reduce_scatter" || op == "alltoall") && ratio < 1)
    n = 1 / (1 - ratio); // (n-1)/n = ratio
  const double whole = std::round(n);
  if (whole < 2 || std::abs(n - whole) > 0.15 || whole > io::range::kGpus.hi)
    return std::nullopt;
  how = fmt::format("inferred from the table (busbw / algbw = {:.4g} at {} B is {}'s factor on {} ranks)", ratio,
                    best->bytes, op, whole);
  return static_cast<int>(whole);
}
} // namespace

double nccl_tests_bus_factor(const std::string& op, int n)
{
  const double ranks = n;
  if (op == "all_reduce")
    return 2 * (ranks - 1) / ranks;
  if (op == "all_gather" || op == "reduce_scatter" || op == "alltoall")
    return (ranks - 1) / ranks;
  return 1;
}

NcclTestsTable read_nccl_tests(const std::string& path)
{
  return parse_nccl_tests(io::read_input_file(path, "nccl-tests text file"), path);
}

NcclTestsTable parse_nccl_tests(const std::string& text, const std::string& path)
{
  NcclTestsTable table;
  std::vector<std::string> hosts;
  int rank_lines  = 0;
  bool block_done = false, gap = false; // gap: a line that is not a row since the last row
  std::size_t number = 0;
  std::vector<std::string_view> t;
  const std::string_view all(text);
  auto where = [&](const char* what) { return fmt::format("{}: line {}: {}", path, number, what); };
  for (std::size_t pos = 0; pos < all.size() && !block_done;) {
    const std::size_t end = std::min(all.find('\n', pos), all.size());
    std::string_view line = all.substr(pos, end - pos);
    pos                   = end + 1;
    ++number;
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    const bool comment = !line.empty() && line.front() == '#';
    if (comment && !table.rows.empty()) {
      block_done = true; // a header after rows: the next block, which is not read
      break;
    }
    std::string_view body = line;
    while (!body.empty() && body.front() == '#')
      body.remove_prefix(1);
    split(body, t);
    if (t.empty())
      continue;
    const bool row = t.size() >= 5 && one_of(t[2], kTypes) && one_of(t[3], kRedops);
    if (!row) {
      if (!table.rows.empty()) {
        gap = true;
        continue;
      }
      // Headers, with or without their '#': what the log says about itself.
      if (t[0] == "Rank" && t.size() >= 4) {
        const auto on = std::find(t.begin(), t.end(), "on");
        if (on != t.end() && on + 1 != t.end()) {
          ++rank_lines;
          const std::string host(*(on + 1));
          if (std::find(hosts.begin(), hosts.end(), host) == hosts.end())
            hosts.push_back(host);
        }
      } else if (t.size() >= 4 && t[0] == "Collective" && t[1] == "test" && t[2] == "starting:") {
        std::string name(t[3]);
        if (name.size() > 5 && name.compare(name.size() - 5, 5, "_perf") == 0)
          name.resize(name.size() - 5);
        if (io::printable(name, 100) == name)
          table.op = name, table.op_from = "header";
      } else if (const auto env = std::find(t.begin(), t.end(), "INFO");
                 env != t.end() && t.end() - env >= 7 && (env[1] == "NCCL_ALGO" || env[1] == "NCCL_PROTO") &&
                 env[2] == "set" && env[3] == "by" && env[4] == "environment" && env[5] == "to") {
        // NCCL_DEBUG=INFO's note of an environment setting; every rank prints it, all alike.
        const std::string value(env[6]);
        if (io::printable(value, 100) != value)
          throw io::InputError(path, fmt::format("line {}", number), "holds control characters or invalid UTF-8");
        auto& slot = env[1] == "NCCL_ALGO" ? table.nccl_algo : table.nccl_proto;
        if (slot && *slot != value)
          throw io::InputError(path, fmt::format("line {}", number),
                               fmt::format("states {}={} where an earlier line states {}", env[1], io::echo(value),
                                           io::echo(*slot)));
        slot = value;
      } else if (t.size() >= 3 && t[0] == "NCCL" && t[1] == "version") {
        if (io::printable(std::string(t[2]), 100) == std::string(t[2]))
          table.nccl_version = std::string(t[2]);
      } else if (comment && line.rfind("# ccsim collective: ", 0) == 0) {
        const std::string rest(line.substr(20));
        std::vector<std::string_view> words;
        split(rest, words);
        if (!words.empty())
          table.op = std::string(words[0]), table.op_from = "header";
        const auto open = rest.find(" (");
        if (open != std::string::npos) {
          std::vector<std::string_view> after;
          split(std::string_view(rest).substr(open + 2), after);
          if (after.empty())
            throw io::InputError(path, fmt::format("line {}", number), "expected the rank count after '('");
          table.ranks = static_cast<int>(io::parse_integer(std::string(after.front()),
                                                           io::Range{2, io::range::kGpus.hi}, where("ranks")));
          table.ranks_from = "header";
        }
      }
      continue;
    }
    // A row: size count type redop root time algbw busbw #wrong [time algbw busbw #wrong].
    const std::string text_line(line);
    if (io::printable(text_line, text_line.size() + 1) != text_line)
      throw io::InputError(path, fmt::format("line {}", number), "holds control characters or invalid UTF-8");
    if (t.size() != 9 && t.size() != 13)
      throw io::InputError(path, fmt::format("line {}", number),
                           fmt::format("expected nccl-tests' 13 columns (size count type redop root, then time algbw "
                                       "busbw #wrong out-of-place and in-place) or 9, got {}: {}",
                                       t.size(), io::echo(text_line)));
    NcclTestsRow r;
    r.bytes = static_cast<std::uint64_t>(io::parse_integer(std::string(t[0]), io::range::kCollectiveBytes, where("size")));
    (void)io::parse_integer(std::string(t[1]), io::Range{0, 1e15}, where("count"));
    r.type  = std::string(t[2]);
    r.redop = std::string(t[3]);
    r.root  = io::parse_integer(std::string(t[4]), io::Range{-1, 1e9}, where("root"));
    r.time_us = io::parse_number(std::string(t[5]), io::Range{0, 1e12, true}, where("out-of-place time (us)"));
    r.algbw_gbytes_per_s = io::parse_number(std::string(t[6]), io::Range{0, 1e12}, where("out-of-place algbw"));
    r.busbw_gbytes_per_s = io::parse_number(std::string(t[7]), io::Range{0, 1e12}, where("out-of-place busbw"));
    if (t.size() == 13)
      r.in_place_time_us = io::parse_number(std::string(t[9]), io::Range{0, 1e12, true}, where("in-place time (us)"));
    if (!table.rows.empty() && r.bytes <= table.rows.back().bytes) {
      if (gap)
        break; // rows again after other lines, smaller: a second block
      throw io::InputError(path, fmt::format("line {}", number), "sizes must grow from row to row");
    }
    if (table.rows.size() == io::limits::kMaxNcclTestsRows)
      throw io::InputError(path, fmt::format("line {}", number),
                           fmt::format("more than {} rows: the limit (nccl-tests prints one row per size)",
                                       io::limits::kMaxNcclTestsRows));
    table.rows.push_back(std::move(r));
    gap = false;
  }
  if (table.rows.empty())
    throw io::InputError(path, "", "no nccl-tests rows (size count type redop root time ...)");
  if (!table.op)
    table.op = op_of_table(table.rows, table.op_from);
  if (!table.ranks && rank_lines >= 2) {
    table.ranks      = rank_lines;
    table.ranks_from = "header";
  }
  if (!hosts.empty() && rank_lines >= 2)
    table.nodes = static_cast<int>(hosts.size());
  if (!table.ranks && table.op)
    table.ranks = ranks_of_table(table.rows, *table.op, table.ranks_from);
  return table;
}

} // namespace ccsim::api
