// libFuzzer target: calibration fits files (api::load_calibration_fits, what `ccsim validate --fits` reads; it also
// loads the topology and the tables each fit names).
#include "api/calibration/CalibrationFits.hpp"
#include "tests/fuzz/FuzzLoader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  return ccsim::fuzz::run_loader(data, size, [](const std::string& p) { (void)ccsim::api::load_calibration_fits(p); });
}
