// libFuzzer target: nccl-tests text tables (cli::read_nccl_tests, what `ccsim calibrate --nccl-tests` reads).
#include "cli/NcclTestsText.hpp"
#include "tests/fuzz/FuzzLoader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  return ccsim::fuzz::run_loader(data, size, [](const std::string& p) { (void)ccsim::cli::read_nccl_tests(p); });
}
