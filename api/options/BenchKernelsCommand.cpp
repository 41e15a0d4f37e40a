// `bench-kernels`'s option table and request builder (BenchKernelsCommand.hpp).
#include "api/options/BenchKernelsCommand.hpp"

#include "api/options/CommonOptions.hpp"

#include "io/JsonInput.hpp"

namespace ccsim::api {

const OptionTable<BenchKernelsCommand>& bench_kernels_options()
{
  static const OptionTable<BenchKernelsCommand> table = [] {
    using C    = BenchKernelsCommand;
    auto lines = terminal_lines<C>();
    append(lines, {
        {choice_option("backend", {"cpu", "cuda"}, "cpu or cuda").defaults("cpu"), into(&C::backend)},
        {integer_option("bytes", io::range::kBenchBytes, "input buffer size (default 64 MiB)")
             .defaults(std::to_string(64ull << 20)),
         into(&C::bytes)},
        {integer_option("repeats", io::range::kRepeats, "timed runs per kernel (the median is reported)").defaults("7"),
         into(&C::repeats)},
        // The same bounds as CCSIM_THREADS (cli/main.cpp).
        {integer_option("threads", io::Range{1, 1024},
                        "CPU threads per kernel, 1 to 1024 (results bit-identical to 1; topk stays serial)")
             .defaults("1"),
         into(&C::threads)},
    });
    return OptionTable<C>("bench-kernels", "", "bench_kernels", std::move(lines));
  }();
  return table;
}

BenchKernelsCommand build_bench_kernels(const GivenValues& given)
{
  BenchKernelsCommand c = bench_kernels_options().fill(given);
  if (c.backend != "cpu" && given.has("threads"))
    throw io::InputError("--threads", "", "only the cpu backend uses threads");
  return c;
}

} // namespace ccsim::api
