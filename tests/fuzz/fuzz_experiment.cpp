// libFuzzer target: experiment files (api::load_experiment, which also resolves the presets a point names).
#include "api/experiment/Experiment.hpp"
#include "tests/fuzz/FuzzLoader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  return ccsim::fuzz::run_loader(data, size, [](const std::string& p) { (void)ccsim::api::load_experiment(p); });
}
