// The CUDA kernel benchmark behind `ccsim bench-kernels --backend cuda`: the launchers of the twin kernels
// (OnebitPack.cuh, GroupQuantizer.cuh, Hadamard.cuh, Sparsifiers.cuh, ActivationQuantizer.cuh) timed with CUDA
// events on device-resident buffers, in the CPU benchmark's order and names (numerics/KernelBench.cpp).
#include "numerics/cuda/KernelBenchCuda.hpp"

#include "numerics/cuda/ActivationQuantizer.cuh"
#include "numerics/cuda/DeviceMemory.cuh"
#include "numerics/cuda/EventTimer.cuh"
#include "numerics/cuda/GroupQuantizer.cuh"
#include "numerics/cuda/Hadamard.cuh"
#include "numerics/cuda/OnebitPack.cuh"
#include "numerics/cuda/Sparsifiers.cuh"

#include <algorithm>

namespace ccsim::numerics::cuda {

namespace {
/// The single-pass compressor as a production kernel would run it (issue 49): each thread compensates 8 elements
/// (p = x + c - scale·sign(c)), moved as two float4 (issue 45: scalar loads kept too few bytes in flight), writes c = p
/// and their sign byte, and the sum of squares is a grid-wide reduction finished with atomics. Its order differs from
/// the CPU's lanes (the training kernel set uses the order-exact compress_compensated instead); the benchmark times
/// this one because it is what a GPU run would ship.
__global__ void compress_compensated_unordered_kernel(const float4* __restrict__ d_x, float4* __restrict__ d_c,
                                                      float scale, std::size_t n, std::uint8_t* __restrict__ d_bits,
                                                      double* __restrict__ d_sum)
{
  double local = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n / 8;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const float4 x0 = d_x[2 * i], x1 = d_x[2 * i + 1], c0 = d_c[2 * i], c1 = d_c[2 * i + 1];
    const float xv[8] = {x0.x, x0.y, x0.z, x0.w, x1.x, x1.y, x1.z, x1.w};
    float cv[8]       = {c0.x, c0.y, c0.z, c0.w, c1.x, c1.y, c1.z, c1.w};
    unsigned byte     = 0;
    for (int j = 0; j < 8; ++j) {
      const float p = __fadd_rn(xv[j], __fsub_rn(cv[j], cv[j] >= 0.0f ? scale : -scale));
      cv[j]         = p;
      byte |= static_cast<unsigned>(p >= 0.0f) << (7 - j);
      local += static_cast<double>(p) * p;
    }
    d_c[2 * i]     = make_float4(cv[0], cv[1], cv[2], cv[3]);
    d_c[2 * i + 1] = make_float4(cv[4], cv[5], cv[6], cv[7]);
    d_bits[i]      = static_cast<std::uint8_t>(byte);
  }
  for (int o = 16; o > 0; o >>= 1)
    local += __shfl_xor_sync(0xffffffffu, local, o);
  __shared__ double part[32];
  if (threadIdx.x % 32 == 0)
    part[threadIdx.x / 32] = local;
  __syncthreads();
  if (threadIdx.x == 0) {
    double sum = 0;
    for (unsigned w = 0; w < blockDim.x / 32; ++w)
      sum += part[w];
    atomicAdd(d_sum, sum);
  }
}
} // namespace

void pack_signs_host(const float* x, std::size_t n, std::uint8_t* bits)
{
  if (n == 0)
    return;
  DeviceBuffer<float> d_x(n);
  DeviceBuffer<std::uint8_t> d_bits(n / 8);
  d_x.upload(x);
  pack_signs(d_x.get(), n, d_bits.get());
  d_bits.download(bits);
}

std::vector<CudaKernelRate> bench_kernels(std::uint64_t bytes, int repeats)
{
  const std::size_t n = std::max<std::size_t>(1024, bytes / 4 / 1024 * 1024);
  DeviceBuffer<float> d_x(n), d_y(n), d_state(n), d_scales(n / 128 + 1024);
  DeviceBuffer<std::uint8_t> d_bits(n / 8), d_codes(n);
  DeviceBuffer<std::int8_t> d_aq_codes(n);
  DeviceBuffer<double> d_sum(1);
  check_cuda(cudaMemset(d_x.get(), 0, n * sizeof(float)), "memset");
  check_cuda(cudaMemset(d_state.get(), 0, n * sizeof(float)), "memset");
  EventTimer timer;
  std::vector<CudaKernelRate> out;
  // The median of `repeats` single launches, after a warm-up.
  auto time = [&](const char* name, auto&& launch) {
    const double s = median_launch_seconds(timer, launch, repeats, 0.0, nullptr);
    check_cuda(cudaGetLastError(), name);
    out.push_back({name, 4ull * n, 4.0 * static_cast<double>(n) / s / 1e9});
  };
  time("memcpy", [&] { cudaMemcpy(d_y.get(), d_x.get(), n * sizeof(float), cudaMemcpyDeviceToDevice); });
  time("onebit_compress", [&] {
    cudaMemset(d_sum.get(), 0, sizeof(double));
    compress_compensated_unordered_kernel<<<132 * 16, 256>>>(reinterpret_cast<const float4*>(d_x.get()),
                                                             reinterpret_cast<float4*>(d_state.get()), 0.5f, n,
                                                             d_bits.get(), d_sum.get());
  });
  time("onebit_decompress", [&] { unpack_signs(d_bits.get(), n, 0.5f, d_y.get()); });
  time("quant_int4_g128",
       [&] { quantize_groups_packed(d_x.get(), n, 4, 128, /*stochastic=*/true, 3, d_codes.get(), d_scales.get(), 0); });
  time("quant_int8_g128",
       [&] { quantize_groups_packed(d_x.get(), n, 8, 128, /*stochastic=*/true, 3, d_codes.get(), d_scales.get(), 0); });
  time("hadamard32_quant_int4", [&] {
    hadamard32(d_y.get(), n);
    quantize_groups_packed(d_y.get(), n, 4, 128, /*stochastic=*/true, 3, d_codes.get(), d_scales.get(), 0);
  });
  {
    const std::size_t k = n / 10;
    DeviceBuffer<std::uint32_t> d_mask(k);
    std::vector<std::uint32_t> mask(k);
    for (std::size_t i = 0; i < k; ++i)
      mask[i] = static_cast<std::uint32_t>(i * 10); // the kernel's cost does not depend on which k indices
    d_mask.upload(mask.data());
    time("randk_gather", [&] { gather(d_x.get(), d_mask.get(), k, d_y.get()); });
  }
  {
    DeviceBuffer<float> d_key(n), d_key_sorted(n);
    DeviceBuffer<std::uint32_t> d_idx(n), d_idx_sorted(n);
    const std::size_t temp = magnitude_sort_temp_bytes(n);
    DeviceBuffer<std::uint8_t> d_temp(temp);
    const MagnitudeSortBuffers buffers{d_key.get(),          d_key_sorted.get(), d_idx.get(),
                                       d_idx_sorted.get(),   d_temp.get(),       temp};
    time("topk", [&] { sort_by_magnitude(d_x.get(), n, buffers); });
  }
  // AQ-SGD's sender: delta against the per-example buffer, per-channel quantization, buffer update (1024 channels).
  time("aq_delta_quant",
       [&] { quantize_delta_channels(d_x.get(), d_state.get(), n / 1024, 1024, 4, d_aq_codes.get(), d_scales.get()); });
  return out; // already in the CPU benchmark's order
}

} // namespace ccsim::numerics::cuda
