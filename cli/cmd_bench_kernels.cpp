// `ccsim bench-kernels [--backend cpu|cuda] [--bytes N] [--repeats R] [--threads T]`: compression kernel throughput.
// The CPU path is the one CCSIM_SIMD / the CPU select (numerics/SimdLevel.hpp); the table and JSON say which.
#include "cli/Command.hpp"
#include "numerics/SimdLevel.hpp"
#include "cli/Options.hpp"
#include "api/output/Table.hpp"
#include "api/run/Backends.hpp"
#include "io/JsonInput.hpp"

#include <fmt/format.h>

#include <iostream>

namespace ccsim::cli {

int cmd_bench_kernels(const std::vector<std::string>& args)
{
  po::options_description desc("ccsim bench-kernels options");
  add_common_options(desc);
  desc.add_options()("backend", po::value<std::string>()->default_value("cpu"), "cpu or cuda")(
      "bytes", po::value<std::string>()->default_value(std::to_string(64ull << 20)), "input buffer size (default 64 MiB)")(
      "repeats", po::value<std::string>()->default_value("7"), "timed runs per kernel (the median is reported)")(
      "threads", po::value<std::string>()->default_value("1"),
      "CPU threads per kernel, 1 to 1024 (results bit-identical to 1; topk stays serial)");
  po::variables_map vm;
  if (!parse_options("bench-kernels", args, desc, vm))
    return 0;
  const Format format = output_format(vm);
  const auto backend  = choice_flag(vm, "backend", {"cpu", "cuda"});
  const auto bytes    = static_cast<std::uint64_t>(*integer_flag(vm, "bytes", io::range::kBenchBytes));
  const int repeats   = static_cast<int>(*integer_flag(vm, "repeats", io::range::kRepeats));
  // The same bounds as CCSIM_THREADS (cli/main.cpp).
  const auto threads = static_cast<std::size_t>(*integer_flag(vm, "threads", io::Range{1, 1024}));
  if (backend != "cpu" && !vm["threads"].defaulted())
    throw io::InputError("--threads", "", "only the cpu backend uses threads");
  const auto rows = bench_kernels(backend, bytes, repeats, threads);
  const double memcpy_gbps = rows.front().gbps;
  if (format != Format::TABLE) {
    nlohmann::json doc = {{"simd", numerics::to_string(numerics::simd_level())},
                          {"threads", threads},
                          {"rows", nlohmann::json::array()}};
    for (const auto& r : rows)
      doc["rows"].push_back({{"kernel", r.kernel}, {"backend", r.backend}, {"bytes", r.bytes}, {"GBps", r.gbps},
                             {"vs_memcpy", r.gbps / memcpy_gbps}});
    print_json_or_csv(format, doc, doc["rows"].get<std::vector<nlohmann::json>>());
    return 0;
  }
  Table t({"kernel", "backend", "input (MiB)", "GB/s", "x memcpy"});
  for (const auto& r : rows)
    t.add_row({r.kernel, r.backend, format_number(static_cast<double>(r.bytes) / (1 << 20)), format_number(r.gbps),
               format_number(r.gbps / memcpy_gbps, 3)});
  t.print(std::cout, table_width());
  std::cout << fmt::format("cpu kernels: {} path (CCSIM_SIMD=scalar|avx2|avx512 caps it), {} thread{}\n",
                           numerics::to_string(numerics::simd_level()), threads, threads == 1 ? "" : "s");
  return 0;
}

} // namespace ccsim::cli
