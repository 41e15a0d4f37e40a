#pragma once
// Reads the text table nccl-tests prints (all_reduce_perf, all_gather_perf, sendrecv_perf, ...; src/common.cu) and
// the same table `ccsim collective` prints, verbatim as a terminal or a batch log captured it: one row per size,
//   size count type redop root | time algbw busbw #wrong (out-of-place) | time algbw busbw #wrong (in-place),
// among lines that are not rows and are skipped: '#' headers, the same headers with their '#' lost by a capture
// ("nThread 1 nGpus 1 ...", "size count type ..."), "NCCL version 2.26.2+cuda12.8", mpirun and "NCCL INFO" lines.
// A line is a row when its third and fourth words are a data type and a reduction nccl-tests prints ("float sum",
// "float none"); such a line must then be a whole row, or it is an error naming the file and the line.
//
// What the log says about itself is read when it says it: NCCL_ALGO and NCCL_PROTO where NCCL_DEBUG=INFO printed them
// ("... NCCL INFO NCCL_ALGO set by environment to Ring", src/misc/param.cc; one value per log, or an error naming the
// line that contradicts it), the collective from "# Collective test starting: X_perf"
// (or ccsim's "# ccsim collective: X on ..."), the ranks from the "#  Rank N Group G Pid P on HOST device D" lines
// (one per GPU) and the nodes from their distinct hosts. Where the header is silent, the collective and the rank
// count are inferred from the table (busbw / algbw is nccl-tests' bus factor: 2(n-1)/n for all_reduce, (n-1)/n for
// all_gather, reduce_scatter and alltoall, 1 for sendrecv) and the table says how it inferred them.
//
// One pass over the text, no regular expressions. At most io::limits::kMaxNcclTestsRows rows: a fit simulates every
// row at each iteration.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ccsim::api {

struct NcclTestsRow {
  std::uint64_t bytes = 0;
  std::string type;            // "float"
  std::string redop;           // "sum", "none"
  std::int64_t root = -1;
  double time_us     = 0;      // out-of-place
  double algbw_gbytes_per_s = 0;
  double busbw_gbytes_per_s = 0;
  std::optional<double> in_place_time_us; // absent in 9-column tables
};

struct NcclTestsTable {
  std::optional<std::string> op; // "all_reduce", ...
  std::string op_from;           // how op was found: "header" or a sentence naming the inference from the table
  std::optional<int> ranks;
  std::string ranks_from;        // "header" (Rank lines or ccsim's header) or the inference from the table
  std::optional<int> nodes;      // distinct hosts of the Rank lines
  std::optional<std::string> nccl_version;
  /// NCCL_ALGO / NCCL_PROTO as NCCL_DEBUG=INFO states them ("NCCL INFO NCCL_ALGO set by environment to Ring"), verbatim.
  std::optional<std::string> nccl_algo, nccl_proto;
  std::vector<NcclTestsRow> rows;
};

/// Parses `path`. A row that does not parse is an io::InputError "FILE: line N: what is wrong". Only the first block of
/// rows is read (a file of several blocks, one per rank count or collective, ends the block at the next header). At
/// most io::limits::kMaxNcclTestsRows rows.
NcclTestsTable read_nccl_tests(const std::string& path);

/// The same on text already in memory; `where` names it in errors.
NcclTestsTable parse_nccl_tests(const std::string& text, const std::string& where);

/// nccl-tests' bus-bandwidth factor of `op` on `n` ranks (doc/PERFORMANCE.md): all_reduce 2(n-1)/n; all_gather,
/// reduce_scatter, alltoall (n-1)/n; sendrecv 1.
double nccl_tests_bus_factor(const std::string& op, int n);

} // namespace ccsim::api
