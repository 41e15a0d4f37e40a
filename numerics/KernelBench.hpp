#pragma once
// `ccsim bench-kernels`: input bytes per second of the compression kernels whose names the simulator's
// KernelOps use, median of repeated runs, with memcpy as the reference.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ccsim::numerics {

struct KernelRate {
  std::string kernel;
  std::string backend;
  std::uint64_t bytes;
  double gbps;      // 1e9 input bytes per second, of the median run
  double vs_memcpy; // the median of (memcpy time / kernel time) over pairs timed one after the other; 1 for memcpy
};

/// The median over i of copy_s[i] / kernel_s[i] (pairs timed one right after the other; the shorter length counts,
/// at least one pair): how many memcpys of the same bytes one kernel run is worth, robust to the machine's drift.
double paired_ratio(const std::vector<double>& copy_s, const std::vector<double>& kernel_s);

/// Kernel names in the order they are reported.
const std::vector<std::string>& bench_kernel_names();

/// Every kernel, each timed run right after a timed memcpy of the same bytes (memcpy first in the result, its rate over
/// all those copies), on `threads` threads, split where the results stay bit-identical to one thread; topk and
/// onebit_compress (one pass whose sum of squares adds in index order, numerics/OnebitPack.hpp) stay serial.
std::vector<KernelRate> bench_cpu(std::uint64_t bytes, int repeats, std::size_t threads = 1);

} // namespace ccsim::numerics
