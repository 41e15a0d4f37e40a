// nccl-tests text read verbatim (api/calibration/NcclTestsText.hpp): the ten real logs of tests/data/nccl-tests-real
// (published by others, README.md there gives the sources), the lines real logs carry around their tables, and a
// table of the most rows allowed read whole.
#include "api/calibration/NcclTestsText.hpp"
#include "io/JsonInput.hpp"

#include <catch2/catch.hpp>

#include <optional>
#include <string>

using ccsim::api::parse_nccl_tests;
using ccsim::api::read_nccl_tests;

namespace {
std::string log_path(const std::string& name)
{
  return std::string(CCSIM_SOURCE_DIR) + "/tests/data/nccl-tests-real/" + name;
}
} // namespace

TEST_CASE("NcclTestsText: every real log parses verbatim and says its collective and ranks", "[api]")
{
  struct Expected {
    const char* file;
    const char* op;
    int ranks;
    int nodes; // 0: the log names no hosts
    std::size_t rows;
  };
  // op / ranks / nodes / rows as index.json and the logs' own headers give them (a '#'-less header in 10, an "NCCL
  // version" line in 03 and 11, "N/A" in 14's #wrong column, no Rank lines in 13 and 14).
  const Expected logs[] = {
      {"01-h100-gcp-a3mega-tcpxo-2n-allreduce.txt", "all_reduce", 16, 2, 31},
      {"02-a100-oci-bmgpu48-roce-2n-allreduce.txt", "all_reduce", 16, 2, 31},
      {"03-h100-hgx-8xcx7-ndr-2n-allreduce.txt", "all_reduce", 16, 2, 32},
      {"10-h100-gcp-a3high-tcpx-2n-allgather.txt", "all_gather", 16, 0, 11},
      {"11-b200-gcp-a4-gib-roce-2n-allgather.txt", "all_gather", 16, 2, 24},
      {"12-h100-1n-nvswitch-allreduce.txt", "all_reduce", 8, 1, 4},
      {"13-a100-dgx-1n-4gpu-nvswitch-allreduce.txt", "all_reduce", 4, 0, 4},
      {"14-a100-1n-8gpu-nvswitch-sendrecv.txt", "sendrecv", 0, 0, 4},
      {"15-a100-oci-bmgpu48-1n-allreduce-10g.txt", "all_reduce", 8, 1, 1},
      {"16-a100-oci-bmgpu48-roce-2n-allreduce-10g.txt", "all_reduce", 16, 2, 1},
  };
  for (const auto& e : logs) {
    INFO(e.file);
    const auto t = read_nccl_tests(log_path(e.file));
    REQUIRE(t.op);
    CHECK(*t.op == e.op);
    CHECK(t.rows.size() == e.rows);
    if (e.ranks > 0) {
      REQUIRE(t.ranks);
      CHECK(*t.ranks == e.ranks);
    } else {
      CHECK_FALSE(t.ranks); // sendrecv's bus factor is 1 whatever the rank count: --ranks must say
    }
    if (e.nodes > 0) {
      REQUIRE(t.nodes);
      CHECK(*t.nodes == e.nodes);
    }
  }
  // 03: the header line names NCCL, the 8 B row's in-place time is kept (24.70 us beside 68.52 out-of-place).
  const auto h100 = read_nccl_tests(log_path("03-h100-hgx-8xcx7-ndr-2n-allreduce.txt"));
  CHECK(h100.nccl_version == std::optional<std::string>("2.26.2+cuda12.8"));
  CHECK(h100.rows.front().time_us == 68.52);
  CHECK(h100.rows.front().in_place_time_us == std::optional<double>(24.70));
  CHECK(h100.op_from.find("inferred") == 0);
  // 15 names its collective in "# Collective test starting: all_reduce_perf".
  CHECK(read_nccl_tests(log_path("15-a100-oci-bmgpu48-1n-allreduce-10g.txt")).op_from == "header");
  // 13: 4 ranks from its bus factor, 224.84 / 149.89 = 1.500 = 2(n-1)/n.
  CHECK(read_nccl_tests(log_path("13-a100-dgx-1n-4gpu-nvswitch-allreduce.txt")).ranks_from.find("inferred") == 0);
}

TEST_CASE("NcclTestsText: lines around the table are skipped and a broken row is one error naming its line", "[api]")
{
  const std::string text = "+ mpirun -np 16 --hostfile hosts -x NCCL_DEBUG=INFO ./all_reduce_perf -b 8 -e 1G\n"
                           "nccl-0:123:123 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
                           "NCCL version 2.21.5+cuda12.4\n"
                           "       size         count      type   redop    root     time   algbw   busbw #wrong\n"
                           "           8             2     float     sum      -1    30.10    0.00    0.00      0"
                           "    29.90    0.00    0.00      0\n"
                           "nccl-0:123:130 [0] NCCL INFO comm 0x55 rank 0 nranks 16 - Init COMPLETE\n"
                           "          16             4     float     sum      -1    30.50    0.00    0.00    N/A"
                           "    30.20    0.00    0.00    N/A\n"
                           "Out of bounds values : 0 OK\n"
                           "Avg bus bandwidth    : 0.00\n";
  const auto t = parse_nccl_tests(text, "noisy.txt");
  REQUIRE(t.rows.size() == 2);
  CHECK(t.rows[1].bytes == 16);
  CHECK(t.nccl_version == std::optional<std::string>("2.21.5+cuda12.4"));
  const std::string broken = "           8             2     float     sum      -1    30.10    0.00    0.00      0\n"
                             "          16             4     float     sum      -1    abc    0.00    0.00      0\n";
  CHECK_THROWS_WITH(parse_nccl_tests(broken, "broken.txt"), Catch::Contains("broken.txt: line 2"));
}

TEST_CASE("NcclTestsText: a table of 1000 rows reads whole and a 1001st row is one line naming it", "[api]")
{
  // io::limits::kMaxNcclTestsRows: every size and time of the largest table allowed is read; one row more is refused
  // at its own line (two Rank lines come first, so row k is line k + 2).
  std::string text = "#  Rank  0 Group  0 Pid 1 on host-a device  0 [0x1] GPU\n#  Rank  1 Group  0 Pid 2 on host-b device  0 [0x1] GPU\n";
  auto row = [](int i) {
    return std::to_string(8 * i) + " " + std::to_string(2 * i) + " float sum -1 " + std::to_string(10 + i) +
           ".5 0.10 0.19 0 " + std::to_string(10 + i) + ".25 0.10 0.19 0\n";
  };
  for (int i = 1; i <= 1000; ++i)
    text += row(i);
  const auto t = parse_nccl_tests(text, "large.txt");
  REQUIRE(t.rows.size() == 1000);
  CHECK(t.rows.back().bytes == 8000);
  CHECK(t.rows.back().time_us == 1010.5);
  CHECK(t.rows.back().in_place_time_us == std::optional<double>(1010.25));
  CHECK(t.ranks == std::optional<int>(2));
  CHECK(t.nodes == std::optional<int>(2));
  CHECK_THROWS_WITH(parse_nccl_tests(text + row(1001), "large.txt"),
                    Catch::Contains("large.txt: line 1003: more than 1000 rows"));
}

TEST_CASE("NcclTestsText: NCCL_ALGO and NCCL_PROTO set by the environment are read where NCCL_DEBUG=INFO states them",
          "[api]")
{
  // NCCL's own wording (src/misc/param.cc: "%s set by environment to %s"), once per rank; a log without it states
  // nothing, and two ranks that state different values are one error naming the second line.
  const std::string row = "           8             2     float     sum      -1    30.10    0.00    0.00      0"
                          "    29.90    0.00    0.00      0\n";
  const std::string stated = "nccl-0:123:123 [0] NCCL INFO NCCL_ALGO set by environment to Ring\n"
                             "nccl-1:456:456 [0] NCCL INFO NCCL_ALGO set by environment to Ring\n"
                             "nccl-0:123:123 [0] NCCL INFO NCCL_PROTO set by environment to LL128\n";
  const auto t = parse_nccl_tests(stated + row, "stated.txt");
  CHECK(t.nccl_algo == std::optional<std::string>("Ring"));
  CHECK(t.nccl_proto == std::optional<std::string>("LL128"));
  const auto silent = parse_nccl_tests("nccl-0:123:123 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to eth0\n" +
                                       row, "silent.txt");
  CHECK_FALSE(silent.nccl_algo);
  CHECK_FALSE(silent.nccl_proto);
  const std::string split = "nccl-0:1:1 [0] NCCL INFO NCCL_ALGO set by environment to Ring\n"
                            "nccl-1:2:2 [0] NCCL INFO NCCL_ALGO set by environment to Tree\n";
  CHECK_THROWS_WITH(parse_nccl_tests(split + row, "split.txt"),
                    Catch::Contains("split.txt: line 2") && Catch::Contains("NCCL_ALGO='Tree'"));
}
