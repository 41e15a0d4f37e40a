// The main job's table (issue 44): README's first command, `ccsim experiment onebit-lamb-table5`, prints a table a
// 160-column terminal shows without wrapping any cell, and it is byte for byte the golden file (every number too).
//
// A change that moves a number or a column on purpose regenerates the golden file:
//   build/ccsim experiment onebit-lamb-table5 --out /tmp/ol5 --no-plot | grep -v '^wrote ' > GOLDEN
// with GOLDEN tests/data/golden/onebit-lamb-table5.txt.
#include "tests/support/RunCcsim.hpp"

#include <catch2/catch.hpp>

#include <string>

using ccsim::test::lines_of_text;
using ccsim::test::read_file;
using ccsim::test::run_ccsim;
using ccsim::test::temp_dir;

TEST_CASE("ccsim experiment onebit-lamb-table5: the main job's table fits 160 columns, one line per row, as golden",
          "[cli]")
{
  const auto r = run_ccsim("experiment onebit-lamb-table5 --no-plot --out " + (temp_dir() / "main-job").string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto lines = lines_of_text(r.out);
  REQUIRE(!lines.empty());
  REQUIRE(lines.back().rfind("wrote ", 0) == 0); // the output folder's path: not part of the golden text
  lines.pop_back();
  for (const auto& l : lines) {
    INFO(l);
    CHECK(l.size() <= 160);
  }
  // Title, fixed axes, the metric titles, headers, rule, then one line per row of Table 5: 10 Ethernet and 8
  // InfiniBand (1-bit LAMB appendix A.2), then the median. A wrapped cell would add a line.
  REQUIRE(lines.size() == 5 + 18 + 1);
  CHECK(lines[2].find("allreduce (ms)") != std::string::npos); // the paper metrics' titles over their triples
  CHECK(lines[4].find_first_not_of("- ") == std::string::npos);
  CHECK(lines[5].rfind("Ethernet 64 nodes 8K ", 0) == 0);
  CHECK(lines[22].rfind("InfiniBand 1 nodes 8K ", 0) == 0);
  CHECK(lines[23].rfind("median |error| vs paper: ", 0) == 0);
  std::string text;
  for (const auto& l : lines)
    text += l + "\n";
  CHECK(text == read_file(std::string(CCSIM_SOURCE_DIR) + "/tests/data/golden/onebit-lamb-table5.txt"));
}

TEST_CASE("ccsim experiment --wide: every column, headed by its results.csv name", "[cli]")
{
  const auto r =
      run_ccsim("experiment onebit-lamb-table5 --no-plot --wide --out " + (temp_dir() / "main-job-wide").string());
  REQUIRE(r.exit_code == 0);
  const auto lines = lines_of_text(r.out);
  REQUIRE(lines.size() > 3);
  const std::string& header = lines[2];
  for (const char* column : {"global_batch", "micro_batch", "samples/s", "step (s)", "allreduce (ms)", "tokens/s",
                             "tokens/s per GPU", "days per 1T tokens", "paper allreduce_ms", "predicted allreduce_ms",
                             "paper step_time_s", "predicted step_time_s"}) {
    INFO(column);
    CHECK(header.find(column) != std::string::npos);
  }
}
