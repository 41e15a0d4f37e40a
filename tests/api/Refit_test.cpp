// The refitter behind `validate` simulates each distinct configuration once per evaluation (issue 49): points that
// ask for the same simulation share it, and every row still gets its own point's prediction.
#include "api/calibration/CalibrationFits.hpp"
#include "api/calibration/Refit.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace ccsim::api;

TEST_CASE("Refit: the WAN fit's 47 points are 30 distinct simulations, and repeated points predict alike", "[api]")
{
  // experiments/calibration/fits.json fits v100x1-wan on AQ-SGD Tables 2, 3 and 5: 15 + 2 + 30 points, 49 paper
  // values. Tables 2 and 5 both list the 10 Gbps FP32 / DirectQ / AQ-SGD rows of their model: counted by hand from
  // the three files (each row's fields but its label and paper values), 30 of the 47 requests differ.
  CalibrationFit wan;
  for (const auto& f : load_calibration_fits(default_fits_path()))
    if (f.topology == "v100x1-wan")
      wan = f;
  REQUIRE(wan.tables.size() == 3);
  Refitter refit(wan, 2);
  REQUIRE(refit.rows().size() == 49);
  const auto& predicted = refit.predict(refit.preset_values());
  CHECK(refit.simulations() == 30); // one evaluation: 30, not 47
  // Table 5's WikiText2 rows repeat all 15 of Table 2's ("10 Gbps FP32" there is "WikiText2 10 Gbps FP32" here): each
  // pair gets one prediction. Every row gets a finite one.
  std::size_t shared = 0;
  for (std::size_t a = 0; a < predicted.size(); ++a) {
    REQUIRE(std::isfinite(predicted[a]));
    for (std::size_t b = 0; b < predicted.size(); ++b) {
      const auto& ra = refit.rows()[a];
      const auto& rb = refit.rows()[b];
      if (wan.tables[ra.table] == "aqsgd-table2" && wan.tables[rb.table] == "aqsgd-table5" &&
          rb.label == "WikiText2 " + ra.label) {
        ++shared;
        CHECK(predicted[a] == predicted[b]);
      }
    }
  }
  CHECK(shared == 15);
}
