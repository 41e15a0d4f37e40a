#pragma once
// `bench-kernels`'s options: the table both front ends generate their arguments from, and the builder that reads what
// was given into the benchmark's request (api/run/Backends.hpp).

#include "api/options/OptionTable.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace ccsim::api {

struct BenchKernelsCommand {
  std::string backend = "cpu";
  std::uint64_t bytes = 0; // input buffer size
  int repeats         = 0; // timed runs per kernel (the median is reported)
  std::size_t threads = 1; // CPU threads per kernel
};

const OptionTable<BenchKernelsCommand>& bench_kernels_options();

/// The given values read and checked (--threads only with the cpu backend).
BenchKernelsCommand build_bench_kernels(const GivenValues& given);

} // namespace ccsim::api
