// The typed validation result (api/calibration/Validation.hpp) without refitting anything: its per-value errors worked
// by hand, and its one serialisation read back to the same document.
#include "api/calibration/Validation.hpp"
#include "io/JsonInput.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace ccsim::api;

namespace {
/// A fit of two tables: table a's value 100 predicted 104 with the preset's constants, 103 in-sample, 98 without its
/// table and 102 without its row; table b's value 50 predicted only with the preset (55) and in-sample (50).
ValidationResult hand_made()
{
  ValidationResult r;
  r.fits_file = "fits.json";
  ValidatedFit f;
  f.topology  = "v100x4-eth40g";
  f.source    = "hand-made";
  f.constants = {{"/nic/effective_gbps", 4.1, 4.3}};
  f.rows      = {{"a", "row 1", "samples_per_s", 100, 104, 103, 98, 102},
                 {"b", "", "allreduce_ms", 50, 55, 50, std::nan(""), std::nan("")}};
  ValidatedTable a;
  a.table                         = "a";
  a.values                        = 1;
  a.preset_median_abs_error_pct   = 4;
  a.in_sample_median_abs_error_pct = 3;
  ValidatedTable b;
  b.table  = "b";
  b.values = 1;
  f.tables = {a, b};
  r.fits   = {f};
  r.values = 2, r.simulations = 7, r.interval_values = 1;
  r.interval_coverage_pct = 100, r.median_interval_half_width_pct = 2.5;
  r.median_abs_error_pct_leave_row_out   = 2;
  r.median_abs_error_pct_leave_table_out = 2;
  r.median_abs_error_pct_in_sample       = 1.5;
  return r;
}
} // namespace

TEST_CASE("Validation: a value's error per holdout is 100 (predicted - paper) / paper, NaN where none", "[api]")
{
  const auto& v = hand_made().fits[0].rows;
  CHECK(v[0].preset_error_pct() == Approx(4.0));                  // 100 (104 - 100) / 100
  CHECK(v[0].error_pct(Holdout::IN_SAMPLE) == Approx(3.0));       // 100 (103 - 100) / 100
  CHECK(v[0].error_pct(Holdout::LEAVE_TABLE_OUT) == Approx(-2.0)); // 100 (98 - 100) / 100
  CHECK(v[0].error_pct(Holdout::LEAVE_ROW_OUT) == Approx(2.0));   // 100 (102 - 100) / 100
  CHECK(v[1].preset_error_pct() == Approx(10.0));                 // 100 (55 - 50) / 50
  CHECK(v[1].error_pct(Holdout::IN_SAMPLE) == Approx(0.0));
  CHECK(std::isnan(v[1].error_pct(Holdout::LEAVE_ROW_OUT)));
}

TEST_CASE("Validation: the document reads back into the same result and the same text", "[api]")
{
  const auto result = hand_made();
  const auto text   = ccsim::io::dump_json(to_json(result), 2);
  const auto again  = validation_from_json(nlohmann::json::parse(text));
  CHECK(ccsim::io::dump_json(to_json(again), 2) == text);
  REQUIRE(again.fits.size() == 1);
  CHECK(again.values == 2); // counted from the rows
  CHECK(again.fits[0].constants[0].refit == 4.3);
  CHECK(again.fits[0].rows[0].leave_row_out == 102);
  CHECK(std::isnan(again.fits[0].rows[1].leave_table_out)); // written as null
  CHECK(again.fits[0].tables[0].in_sample_median_abs_error_pct == 3);
  CHECK(std::isnan(again.fits[0].tables[1].preset_median_abs_error_pct));
  // nothing is a number that was not: the document writes null where a statistic has none
  CHECK(to_json(result)["fits"][0]["tables"][1]["preset_median_abs_error_pct"].is_null());
}

TEST_CASE("Validation: a damaged document is refused naming the field", "[api]")
{
  auto doc = to_json(hand_made());
  doc["fits"][0]["rows"][0].erase("metric");
  CHECK_THROWS_WITH(validation_from_json(doc), Catch::Contains("/fits/*/rows/*/metric: missing"));
  auto bad                      = to_json(hand_made());
  bad["fits"][0]["single_table"] = "no";
  CHECK_THROWS_WITH(validation_from_json(bad), Catch::Contains("single_table: not a boolean"));
}
