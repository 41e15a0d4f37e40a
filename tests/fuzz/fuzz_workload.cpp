// libFuzzer target: workload files (sim::load_workload).
#include "sim/model/Workload.hpp"
#include "tests/fuzz/FuzzLoader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  return ccsim::fuzz::run_loader(data, size, [](const std::string& p) { (void)ccsim::sim::load_workload(p); });
}
