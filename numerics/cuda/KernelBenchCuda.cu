// CUDA twins of the CPU kernels (numerics/OnebitPack, GroupQuantizer, Hadamard) behind the plain-C++ API of
// KernelBenchCuda.hpp, and their benchmark. Same contracts: signs MSB-first with 0 -> +1; scale = ||x||/sqrt(n);
// group codes ±(2^(b-1)-1) with round-half-even or the splitmix64 stochastic draw of GroupQuantizer.hpp.
#include "numerics/cuda/KernelBenchCuda.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ccsim::numerics::cuda {

namespace {
void check_cuda(cudaError_t e, const char* what)
{
  if (e != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

/// Owns device memory; never leaks on an error path.
template <typename T>
class DeviceBuffer {
public:
  explicit DeviceBuffer(std::size_t n) : n_(n) { check_cuda(cudaMalloc(&p_, std::max<std::size_t>(1, n) * sizeof(T)), "cudaMalloc"); }
  ~DeviceBuffer() { cudaFree(p_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  T* get() const { return p_; }
  void upload(const T* h) { check_cuda(cudaMemcpy(p_, h, n_ * sizeof(T), cudaMemcpyHostToDevice), "upload"); }
  void download(T* h) const { check_cuda(cudaMemcpy(h, p_, n_ * sizeof(T), cudaMemcpyDeviceToHost), "download"); }

private:
  T* p_ = nullptr;
  std::size_t n_;
};

unsigned blocks_for(std::size_t n, unsigned threads) { return static_cast<unsigned>((n + threads - 1) / threads); }

__global__ void pack_signs_kernel(const float* __restrict__ d_x, std::size_t n_bytes, std::uint8_t* __restrict__ d_bits)
{
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i >= n_bytes)
    return;
  std::uint8_t byte = 0;
  for (int j = 0; j < 8; ++j)
    byte |= static_cast<std::uint8_t>((d_x[8 * i + j] >= 0.0f) << (7 - j));
  d_bits[i] = byte;
}

__global__ void add_and_square_kernel(float* __restrict__ d_x, const float* __restrict__ d_err, std::size_t n,
                                      double* __restrict__ d_sum)
{
  double local = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    d_x[i] += d_err[i];
    local += static_cast<double>(d_x[i]) * d_x[i];
  }
  __shared__ double part[256];
  part[threadIdx.x] = local;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicAdd(d_sum, part[0]);
}

__global__ void error_kernel(const float* __restrict__ d_x, float* __restrict__ d_err, std::size_t n, const double* d_sum)
{
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i >= n)
    return;
  const float scale = static_cast<float>(sqrt(*d_sum) / sqrt(static_cast<double>(n)));
  d_err[i]          = d_x[i] - (d_x[i] >= 0.0f ? scale : -scale);
}

__device__ float uniform_draw(std::uint64_t seed, std::uint64_t index)
{
  std::uint64_t z = seed ^ (index * 0x9E3779B97F4A7C15ull);
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<float>(z >> 40) * (1.0f / 16777216.0f);
}

/// One block per group: reduce max|x| then write the codes.
__global__ void quantize_groups_kernel(const float* __restrict__ d_x, std::size_t n, int bits, std::size_t group,
                                       bool stochastic, std::uint64_t seed, std::int8_t* __restrict__ d_codes,
                                       float* __restrict__ d_scales)
{
  const std::size_t g0 = blockIdx.x * group, g1 = min(n, g0 + group);
  __shared__ float part[256];
  float m = 0;
  for (std::size_t i = g0 + threadIdx.x; i < g1; i += blockDim.x)
    m = fmaxf(m, fabsf(d_x[i]));
  part[threadIdx.x] = m;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      part[threadIdx.x] = fmaxf(part[threadIdx.x], part[threadIdx.x + s]);
    __syncthreads();
  }
  const float absmax = part[0];
  const float qmax   = static_cast<float>((1 << (bits - 1)) - 1);
  const float inv    = absmax > 0 ? qmax / absmax : 0.0f;
  if (threadIdx.x == 0)
    d_scales[blockIdx.x] = absmax / qmax;
  for (std::size_t i = g0 + threadIdx.x; i < g1; i += blockDim.x) {
    const float v = __fmul_rn(d_x[i], inv); // no FMA contraction: the same v as the CPU computes
    float code;
    if (stochastic) {
      const float lower = floorf(v);
      code              = lower + (uniform_draw(seed, i) < v - lower ? 1.0f : 0.0f);
    } else {
      code = rintf(v); // round half to even, as the CPU quantizer
    }
    d_codes[i] = static_cast<std::int8_t>(fminf(fmaxf(code, -qmax), qmax));
  }
}

__global__ void hadamard32_kernel(float* __restrict__ d_x, std::size_t blocks)
{
  const std::size_t b = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (b >= blocks)
    return;
  float v[32];
  for (int i = 0; i < 32; ++i)
    v[i] = d_x[32 * b + i];
  for (int h = 1; h < 32; h *= 2)
    for (int i = 0; i < 32; i += 2 * h)
      for (int j = i; j < i + h; ++j) {
        const float a = v[j], c = v[j + h];
        v[j]          = a + c;
        v[j + h]      = a - c;
      }
  const float norm = rsqrtf(32.0f);
  for (int i = 0; i < 32; ++i)
    d_x[32 * b + i] = v[i] * norm;
}
} // namespace

void pack_signs_host(const float* x, std::size_t n, std::uint8_t* bits)
{
  DeviceBuffer<float> d_x(n);
  DeviceBuffer<std::uint8_t> d_bits(n / 8);
  d_x.upload(x);
  pack_signs_kernel<<<blocks_for(n / 8, 256), 256>>>(d_x.get(), n / 8, d_bits.get());
  check_cuda(cudaGetLastError(), "pack_signs");
  d_bits.download(bits);
}

float compress_with_feedback_host(const float* x, float* error, std::size_t n, std::uint8_t* bits)
{
  DeviceBuffer<float> d_x(n), d_err(n);
  DeviceBuffer<std::uint8_t> d_bits(n / 8);
  DeviceBuffer<double> d_sum(1);
  d_x.upload(x);
  d_err.upload(error);
  check_cuda(cudaMemset(d_sum.get(), 0, sizeof(double)), "memset");
  add_and_square_kernel<<<std::min(1024u, blocks_for(n, 256)), 256>>>(d_x.get(), d_err.get(), n, d_sum.get());
  pack_signs_kernel<<<blocks_for(n / 8, 256), 256>>>(d_x.get(), n / 8, d_bits.get());
  error_kernel<<<blocks_for(n, 256), 256>>>(d_x.get(), d_err.get(), n, d_sum.get());
  check_cuda(cudaGetLastError(), "compress_with_feedback");
  double sum = 0;
  d_sum.download(&sum);
  d_err.download(error);
  d_bits.download(bits);
  return static_cast<float>(std::sqrt(sum) / std::sqrt(static_cast<double>(n)));
}

void quantize_groups_host(const float* x, std::size_t n, int bits, std::size_t group, bool stochastic,
                          std::uint64_t seed, std::int8_t* codes, float* scales)
{
  const std::size_t groups = (n + group - 1) / group;
  DeviceBuffer<float> d_x(n), d_scales(groups);
  DeviceBuffer<std::int8_t> d_codes(n);
  d_x.upload(x);
  quantize_groups_kernel<<<static_cast<unsigned>(groups), 256>>>(d_x.get(), n, bits, group, stochastic, seed,
                                                                 d_codes.get(), d_scales.get());
  check_cuda(cudaGetLastError(), "quantize_groups");
  d_codes.download(codes);
  d_scales.download(scales);
}

void hadamard32_host(float* x, std::size_t n)
{
  DeviceBuffer<float> d_x(n);
  d_x.upload(x);
  hadamard32_kernel<<<blocks_for(n / 32, 128), 128>>>(d_x.get(), n / 32);
  check_cuda(cudaGetLastError(), "hadamard32");
  d_x.download(x);
}

std::vector<CudaKernelRate> bench_kernels(std::uint64_t bytes, int repeats)
{
  const std::size_t n = std::max<std::size_t>(1024, bytes / 4 / 1024 * 1024);
  DeviceBuffer<float> d_x(n), d_y(n), d_err(n), d_scales(n / 128 + 1);
  DeviceBuffer<std::uint8_t> d_bits(n / 8);
  DeviceBuffer<std::int8_t> d_codes(n);
  DeviceBuffer<double> d_sum(1);
  check_cuda(cudaMemset(d_x.get(), 0, n * sizeof(float)), "memset");
  check_cuda(cudaMemset(d_err.get(), 0, n * sizeof(float)), "memset");
  cudaEvent_t start, stop;
  check_cuda(cudaEventCreate(&start), "event");
  check_cuda(cudaEventCreate(&stop), "event");
  std::vector<CudaKernelRate> out;
  auto time = [&](const char* name, auto&& launch) {
    std::vector<float> ms;
    launch();
    for (int r = 0; r < repeats; ++r) {
      cudaEventRecord(start);
      launch();
      cudaEventRecord(stop);
      cudaEventSynchronize(stop);
      float t = 0;
      cudaEventElapsedTime(&t, start, stop);
      ms.push_back(t);
    }
    check_cuda(cudaGetLastError(), name);
    std::sort(ms.begin(), ms.end());
    out.push_back({name, 4ull * n, 4.0 * static_cast<double>(n) / (ms[ms.size() / 2] * 1e-3) / 1e9});
  };
  const unsigned groups = static_cast<unsigned>((n + 127) / 128);
  time("memcpy", [&] { cudaMemcpy(d_y.get(), d_x.get(), n * sizeof(float), cudaMemcpyDeviceToDevice); });
  time("onebit_compress", [&] { // the compensated input stays on the device, as in the CPU twin
    cudaMemset(d_sum.get(), 0, sizeof(double));
    add_and_square_kernel<<<1024, 256>>>(d_x.get(), d_err.get(), n, d_sum.get());
    pack_signs_kernel<<<blocks_for(n / 8, 256), 256>>>(d_x.get(), n / 8, d_bits.get());
    error_kernel<<<blocks_for(n, 256), 256>>>(d_x.get(), d_err.get(), n, d_sum.get());
  });
  time("quant_int4_g128", [&] { quantize_groups_kernel<<<groups, 128>>>(d_x.get(), n, 4, 128, true, 1, d_codes.get(), d_scales.get()); });
  time("quant_int8_g128", [&] { quantize_groups_kernel<<<groups, 128>>>(d_x.get(), n, 8, 128, true, 1, d_codes.get(), d_scales.get()); });
  time("hadamard32_quant_int4", [&] {
    hadamard32_kernel<<<blocks_for(n / 32, 128), 128>>>(d_y.get(), n / 32);
    quantize_groups_kernel<<<groups, 128>>>(d_y.get(), n, 4, 128, true, 1, d_codes.get(), d_scales.get());
  });
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return out;
}

} // namespace ccsim::numerics::cuda
