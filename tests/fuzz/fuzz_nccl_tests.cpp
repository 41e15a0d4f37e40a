// libFuzzer target: nccl-tests text tables (api::read_nccl_tests, what `ccsim calibrate --nccl-tests` reads).
#include "api/calibration/NcclTestsText.hpp"
#include "tests/fuzz/FuzzLoader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  return ccsim::fuzz::run_loader(data, size, [](const std::string& p) { (void)ccsim::api::read_nccl_tests(p); });
}
