// `bench-compute`'s option table and request builder (BenchComputeCommand.hpp).
#include "api/options/BenchComputeCommand.hpp"

#include "api/options/CommonOptions.hpp"

#include "io/JsonInput.hpp"

namespace ccsim::api {

const OptionTable<BenchComputeCommand>& bench_compute_options()
{
  static const OptionTable<BenchComputeCommand> table = [] {
    using C    = BenchComputeCommand;
    auto lines = terminal_lines<C>();
    append(lines, {
        {choice_option("backend", {"cuda"}, "cuda (GEMMs through cuBLASLt; needs a CUDA device)").defaults("cuda"),
         into(&C::backend)},
        {flag_option("quick", "a sample of the shape grid (a smoke run of a few seconds)"), into(&C::quick)},
        {integer_option("trials", io::Range{1, 99}, "timed trials per kernel, 1 to 99 (the median is reported)")
             .defaults("3"),
         into(&C::trials)},
        {path_option("compare", "a measurement (bench-compute --format json) to compare kernel by kernel with the "
                                "model on --topology's GPU, instead of measuring (no GPU needed)"),
         into(&C::compare)},
        {preset_option("topology", "with --compare: the topology preset or JSON file whose GPU the model prices on"),
         into(&C::topology)},
        {flag_option("fit", "with --compare: also refit the GPU's gpu.compute constants on the measurement and compare "
                            "with them (--format json prints the fitted block)"),
         into(&C::fit)},
    });
    return OptionTable<C>("bench-compute", "", "bench_compute", std::move(lines));
  }();
  return table;
}

BenchComputeCommand build_bench_compute(const GivenValues& given)
{
  BenchComputeCommand c = bench_compute_options().fill(given);
  if (given.has("compare")) {
    for (const char* measuring : {"backend", "quick", "trials"})
      if (given.has(measuring))
        throw io::InputError(std::string("--") + measuring, "",
                             "measures on the GPU; --compare reads an earlier measurement instead");
    if (!given.has("topology"))
      throw io::InputError("--compare", "", "needs --topology (the GPU whose model the measurement is compared with)");
    c.topology_path = io::resolve_preset("topologies", c.topology, "--topology");
  } else {
    for (const char* comparing : {"topology", "fit"})
      if (given.has(comparing))
        throw io::InputError(std::string("--") + comparing, "", "only with --compare FILE");
  }
  return c;
}

} // namespace ccsim::api
