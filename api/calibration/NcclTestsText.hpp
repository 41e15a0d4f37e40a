#pragma once
// Reads the text table nccl-tests prints (all_reduce_perf, all_gather_perf, alltoall_perf, ...; src/common.cu) and
// the same table `ccsim collective` prints: '#' header lines, then one row per size with the columns
//   size count type redop root | time algbw busbw #wrong (out-of-place) | time algbw busbw #wrong (in-place).
// The out-of-place time is what ccsim fits. The collective and the rank count come from the header when it names
// them (ccsim's "# ccsim collective: OP on TOPO (N ranks, ...)", nccl-tests' "#  Rank  k ..." lines); otherwise
// the caller passes them.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ccsim::api {

struct NcclTestsRow {
  std::uint64_t bytes = 0;
  double time_us      = 0; // out-of-place
};

struct NcclTestsTable {
  std::optional<std::string> op; // "all_reduce", ... when the header says
  std::optional<int> ranks;      // when the header says
  std::vector<NcclTestsRow> rows;
};

/// Parses `path`; every malformed line is an io::InputError "FILE: line N: what is wrong". A file holding several
/// blocks (one per rank count) must give --ranks to choose: only one block is read, the first. At most
/// io::limits::kMaxNcclTestsRows rows.
NcclTestsTable read_nccl_tests(const std::string& path);

} // namespace ccsim::api
