// The calibration tables of DESIGN.md ("Calibration and validation") reproduced by `ccsim experiment` from the
// unchanged presets: the median |error| against the papers' numbers stays within the 8 % goal of issue 5.
// The error is recomputed here from each row's `paper` and `predicted` values, 100 (predicted - paper) / paper,
// rather than read from the runner's own median.
#include "tests/support/RunCcsim.hpp"

#include <nlohmann/json.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

using ccsim::test::read_file;
using ccsim::test::run_ccsim;
using ccsim::test::temp_dir;

namespace {
/// Runs one reproduction and returns every |error| in percent over all rows and paper metrics.
std::vector<double> errors_of(const std::string& experiment)
{
  const auto out = (temp_dir() / ("calibration-" + experiment)).string();
  const auto r   = run_ccsim("experiment " + experiment + " --no-plot --out " + out);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto doc = nlohmann::json::parse(read_file(out + "/results.json"));
  std::vector<double> errors;
  for (const auto& row : doc.at("rows")) {
    if (!row.contains("paper"))
      continue;
    for (const auto& [metric, paper] : row.at("paper").items()) {
      const double predicted = row.at("predicted").at(metric).get<double>();
      errors.push_back(std::abs(100 * (predicted - paper.get<double>()) / paper.get<double>()));
    }
  }
  return errors;
}

double median(std::vector<double> v)
{
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void check_table(const std::string& experiment, std::size_t min_values)
{
  const auto errors = errors_of(experiment);
  INFO(experiment << ": " << errors.size() << " paper values");
  REQUIRE(errors.size() >= min_values); // every row of the table carries its paper value
  CHECK(median(errors) <= 8.0);
}
} // namespace

// Value counts: rows x paper metrics as the tables give them (1-bit LAMB Table 5: 10 Ethernet + 8 InfiniBand
// rows, allreduce and step time each; SLAMB Table 12: 12 rows x 3; SDP4Bit Table 2: 1.3B and 2.7B on both
// clusters, baseline and SDP4Bit; AQ-SGD Table 5: 2 tasks x 2 bandwidths x 5 settings).
TEST_CASE("Calibration: 1-bit LAMB Table 5 median error within 8 percent", "[cli]")
{
  check_table("onebit-lamb-table5", 36);
}

TEST_CASE("Calibration: SLAMB Table 9 median error within 8 percent", "[cli]")
{
  check_table("slamb-table9", 4);
}

TEST_CASE("Calibration: SLAMB Table 12 median error within 8 percent", "[cli]")
{
  check_table("slamb-table12", 36);
}

TEST_CASE("Calibration: SDP4Bit Table 2 median error within 8 percent", "[cli]")
{
  check_table("sdp4bit-table2", 8);
}

TEST_CASE("Calibration: SDP4Bit Table 4 median error within 8 percent", "[cli]")
{
  check_table("sdp4bit-table4", 8);
}

TEST_CASE("Calibration: AQ-SGD Table 2 median error within 8 percent", "[cli]")
{
  check_table("aqsgd-table2", 10);
}

TEST_CASE("Calibration: AQ-SGD Table 3 median error within 8 percent", "[cli]")
{
  check_table("aqsgd-table3", 2);
}

TEST_CASE("Calibration: AQ-SGD Table 5 median error within 8 percent", "[cli]")
{
  check_table("aqsgd-table5", 20);
}
