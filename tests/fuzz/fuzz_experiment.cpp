// libFuzzer target: experiment files (cli::load_experiment, which also resolves the presets a point names).
#include "cli/Experiment.hpp"
#include "tests/fuzz/FuzzLoader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  return ccsim::fuzz::run_loader(data, size, [](const std::string& p) { (void)ccsim::cli::load_experiment(p); });
}
