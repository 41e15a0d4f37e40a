// libFuzzer target: topology files (sim::load_topology).
#include "sim/platform/Topology.hpp"
#include "tests/fuzz/FuzzLoader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  return ccsim::fuzz::run_loader(data, size, [](const std::string& p) { (void)ccsim::sim::load_topology(p); });
}
