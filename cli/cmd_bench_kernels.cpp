// `ccsim bench-kernels [--backend cpu|cuda] [--bytes N] [--repeats R] [--threads T]`: compression kernel throughput.
// The CPU path is the one CCSIM_SIMD / the CPU select (numerics/SimdLevel.hpp); the table and JSON say which.
#include "api/options/BenchKernelsCommand.hpp"
#include "api/output/Table.hpp"
#include "api/process/ExitCodes.hpp"
#include "api/run/Backends.hpp"
#include "cli/Command.hpp"
#include "cli/Options.hpp"
#include "numerics/SimdLevel.hpp"

#include <fmt/format.h>

#include <iostream>
#include <new>

namespace ccsim::cli {

int cmd_bench_kernels(const std::vector<std::string>& args)
{
  const auto given = parse_command(bench_kernels_options().options(), args);
  if (!given)
    return 0;
  const Format format           = output_format(*given);
  const BenchKernelsCommand req = build_bench_kernels(*given);
  const std::size_t threads     = req.threads;
  std::vector<numerics::KernelRate> rows;
  try {
    rows = bench_kernels(req.backend, req.bytes, req.repeats, threads);
  } catch (const std::bad_alloc&) {
    // io::range::kBenchBytes: the input, and the kernels' outputs and scratch, about 3x --bytes in all.
    throw api::OutOfMemory(fmt::format("out of memory: --bytes {} needs about {:.3g} GiB (the input and the kernels' "
                                       "buffers, ~3x); give a smaller --bytes, or more memory (ulimit -v)",
                                       req.bytes, 3.0 * static_cast<double>(req.bytes) / (1ull << 30)));
  }
  if (format != Format::TABLE) {
    const nlohmann::json doc = bench_kernels_json(rows, threads);
    print_json_or_csv(format, doc, doc["rows"].get<std::vector<nlohmann::json>>());
    return 0;
  }
  Table t({"kernel", "backend", "input (MiB)", "GB/s", "x memcpy"});
  for (const auto& r : rows)
    t.add_row({r.kernel, r.backend, format_number(static_cast<double>(r.bytes) / (1 << 20)), format_number(r.gbps),
               format_number(r.vs_memcpy, 3)});
  t.print(std::cout, table_width());
  std::cout << fmt::format("cpu kernels: {} path (CCSIM_SIMD=scalar|avx2|avx512 caps it), {} thread{}\n",
                           numerics::to_string(numerics::simd_level()), threads, threads == 1 ? "" : "s");
  return 0;
}

} // namespace ccsim::cli
