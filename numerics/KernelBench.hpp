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
  double gbps; // 1e9 input bytes per second
};

/// Kernel names in the order they are reported.
const std::vector<std::string>& bench_kernel_names();

/// Every kernel (memcpy included, so "x memcpy" compares like with like) on `threads` threads, split where the
/// results stay bit-identical to one thread; topk and onebit_compress (one pass whose sum of squares adds in index
/// order, numerics/OnebitPack.hpp) stay serial.
std::vector<KernelRate> bench_cpu(std::uint64_t bytes, int repeats, std::size_t threads = 1);

} // namespace ccsim::numerics
