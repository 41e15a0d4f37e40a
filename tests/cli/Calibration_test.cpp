// The calibration tables of docs/design/DESIGN.md ("Calibration and validation") reproduced by `ccsim experiment` from the
// unchanged presets: the median |error| against the papers' numbers stays within the 8 % goal of issue 5.
// The error is recomputed here from each row's `paper` and `predicted` values, 100 (predicted - paper) / paper,
// rather than read from the runner's own median.
#include "tests/support/RunCcsim.hpp"

#include <nlohmann/json.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using ccsim::test::read_file;
using ccsim::test::run_ccsim;
using ccsim::test::temp_dir;

namespace {
/// One row's |error| in percent for one paper metric.
struct RowError {
  std::string label;
  double abs_pct;
};

/// Runs one reproduction and returns every |error| in percent over all rows and paper metrics, with its row's label.
std::vector<RowError> row_errors_of(const std::string& experiment)
{
  const auto out = (temp_dir() / ("calibration-" + experiment)).string();
  const auto r   = run_ccsim("experiment " + experiment + " --no-plot --out " + out);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto doc = nlohmann::json::parse(read_file(out + "/results.json"));
  std::vector<RowError> errors;
  for (const auto& row : doc.at("rows")) {
    if (!row.contains("paper"))
      continue;
    for (const auto& [metric, paper] : row.at("paper").items()) {
      const double predicted = row.at("predicted").at(metric).get<double>();
      errors.push_back({row.value("label", std::string()),
                        std::abs(100 * (predicted - paper.get<double>()) / paper.get<double>())});
    }
  }
  return errors;
}

std::vector<double> errors_of(const std::string& experiment)
{
  std::vector<double> out;
  for (const auto& e : row_errors_of(experiment))
    out.push_back(e.abs_pct);
  return out;
}

/// The |errors| of the rows whose label holds every one of `parts`.
std::vector<RowError> rows_with(const std::vector<RowError>& all, const std::vector<std::string>& parts)
{
  std::vector<RowError> out;
  for (const auto& e : all)
    if (std::all_of(parts.begin(), parts.end(), [&](const std::string& p) { return e.label.find(p) != std::string::npos; }))
      out.push_back(e);
  return out;
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
// clusters at 1.3B, 2.7B and 6.7B, baseline and SDP4Bit; AQ-SGD Table 2: 3 bandwidths x 5 settings, Table 3: 2
// bandwidths x forward and backward, Table 5: 2 tasks x 3 bandwidths x 5 settings).
// Issue 48: every paper value of every table is gated by the bound its experiment file records beside it (the table's
// "error_bound", 3 x its median |error| when recorded and at least 5 %, or a row's own with its reason): a row that
// regresses fails here even when the table's median stays low. The bound is read from results.json, where the runner
// carries it from the file (error_bound_pct); the |error| is recomputed from paper and predicted.
TEST_CASE("Calibration: every paper value of every table within the bound its experiment file records", "[cli]")
{
  for (const char* experiment : {"onebit-lamb-table5", "slamb-table9", "slamb-table12", "sdp4bit-table2",
                                 "sdp4bit-table4", "aqsgd-table2", "aqsgd-table3", "aqsgd-table5", "korthikanti-table5",
                                 "korthikanti-table5-vpp", "mtnlg-530b", "bloom-176b", "llama3-table4"}) {
    const auto out = (temp_dir() / (std::string("bounds-") + experiment)).string();
    const auto r   = run_ccsim(std::string("experiment ") + experiment + " --no-plot --quiet --out " + out);
    INFO(experiment << ": " << r.err);
    REQUIRE(r.exit_code == 0);
    const auto doc    = nlohmann::json::parse(read_file(out + "/results.json"));
    std::size_t gated = 0;
    for (const auto& row : doc.at("rows")) {
      if (!row.contains("paper"))
        continue;
      for (const auto& [metric, paper] : row.at("paper").items()) {
        INFO(experiment << " '" << row.value("label", std::string()) << "' " << metric);
        REQUIRE(row.contains("error_bound_pct"));
        REQUIRE(row.at("error_bound_pct").contains(metric)); // every paper value has its bound
        const double predicted = row.at("predicted").at(metric).get<double>();
        const double error     = 100 * (predicted - paper.get<double>()) / paper.get<double>();
        INFO("|error| " << std::abs(error) << " %, bound " << row.at("error_bound_pct").at(metric).get<double>() << " %");
        CHECK(std::abs(error) <= row.at("error_bound_pct").at(metric).get<double>());
        ++gated;
      }
    }
    CHECK(gated > 0);
  }
}

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
  check_table("sdp4bit-table2", 12);
}

TEST_CASE("Calibration: SDP4Bit Table 4 median error within 8 percent", "[cli]")
{
  check_table("sdp4bit-table4", 8);
}

TEST_CASE("Calibration: AQ-SGD Table 2 median error within 8 percent", "[cli]")
{
  check_table("aqsgd-table2", 15);
}

TEST_CASE("Calibration: AQ-SGD Table 3 median error within 8 percent", "[cli]")
{
  check_table("aqsgd-table3", 4);
}

TEST_CASE("Calibration: AQ-SGD Table 5 median error within 8 percent", "[cli]")
{
  check_table("aqsgd-table5", 30);
}

// Issue 32's regimes, each row against the paper: TP 4 on the two-NIC A100 nodes (the per-flow ceiling lets four
// data-parallel groups past what one ring gets through a node) and FP32 pipelines on a tc-shaped WAN (the shaper).
// Before that physics: A100 6.7B -32 % (baseline) and -22 % (SDP4Bit); DeBERTa FP32 at 500 Mbps +24 %.
TEST_CASE("Calibration: SDP4Bit Table 2's TP 4 rows (6.7B) within 8 percent on both clusters", "[cli]")
{
  const auto rows = rows_with(row_errors_of("sdp4bit-table2"), {"6.7b"});
  REQUIRE(rows.size() == 4);
  for (const auto& r : rows) {
    INFO(r.label << ": " << r.abs_pct << " %");
    CHECK(r.abs_pct <= 8.0);
  }
}

TEST_CASE("Calibration: AQ-SGD's FP32 pipeline rows at 500 and 300 Mbps within 8 percent", "[cli]")
{
  const auto all = row_errors_of("aqsgd-table5");
  auto rows      = rows_with(all, {"0.5 Gbps FP32"});
  const auto low = rows_with(all, {"0.3 Gbps FP32"});
  rows.insert(rows.end(), low.begin(), low.end());
  REQUIRE(rows.size() == 4); // DeBERTa (QNLI) and GPT2 (WikiText2) at each rate
  for (const auto& r : rows) {
    INFO(r.label << ": " << r.abs_pct << " %");
    CHECK(r.abs_pct <= 8.0);
  }
}
