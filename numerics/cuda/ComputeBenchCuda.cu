// `ccsim bench-compute --backend cuda` (ComputeBenchCuda.hpp): GEMMs through cuBLASLt with its first heuristic
// choice (what PyTorch and Megatron-LM's linear layers run), the element-wise kernels of a transformer layer written
// here in the fused form Megatron runs them (one read and one write per tensor), and the launch gap.
#include "numerics/cuda/ComputeBenchCuda.hpp"

#include "numerics/cuda/CublasLtLoader.cuh"
#include "numerics/cuda/DeviceMemory.cuh"
#include "numerics/cuda/EventTimer.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>
#include <cmath>
#include <functional>

namespace ccsim::numerics::cuda {

namespace {

// ---- inputs ---------------------------------------------------------------------------------------------------------

/// A value in [-1, 1) from a 64-bit hash of the index: inputs without structure the tensor cores could exploit.
__device__ float hashed_value(std::uint64_t i, std::uint64_t seed)
{
  std::uint64_t z = i + seed * 0x9E3779B97F4A7C15ull;
  z               = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z               = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<float>(z >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

template <typename T>
__global__ void fill_kernel(T* p, std::size_t n, std::uint64_t seed, float scale)
{
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    p[i] = static_cast<T>(scale * hashed_value(i, seed));
}

template <typename T>
void fill(void* p, std::size_t n, std::uint64_t seed, float scale)
{
  if (n == 0)
    return;
  fill_kernel<T><<<4096, 256>>>(static_cast<T*>(p), n, seed, scale);
  check_cuda(cudaGetLastError(), "fill");
}

void fill_typed(const std::string& dtype, void* p, std::size_t n, std::uint64_t seed)
{
  if (dtype == "fp16")
    fill<__half>(p, n, seed, 1.0f);
  else if (dtype == "fp8")
    fill<__nv_fp8_e4m3>(p, n, seed, 1.0f);
  else
    fill<__nv_bfloat16>(p, n, seed, 1.0f);
}

std::size_t element_bytes(const std::string& dtype) { return dtype == "fp8" ? 1 : 2; }

cudaDataType_t input_type(const std::string& dtype)
{
  if (dtype == "fp16")
    return CUDA_R_16F;
  if (dtype == "fp8")
    return CUDA_R_8F_E4M3;
  return CUDA_R_16BF;
}

// ---- GEMMs ----------------------------------------------------------------------------------------------------------

/// One shape's cuBLASLt descriptors and algorithm; destroyed with it.
class LtGemm {
public:
  LtGemm(cublasLtHandle_t handle, const GemmBenchShape& s, std::size_t workspace_bytes)
  {
    const CublasLt& lt = cublaslt();
    const bool fp8     = s.dtype == "fp8";
    const std::string layout = fp8 ? "TN" : s.layout;
    const cublasOperation_t ta = layout[0] == 'T' ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t tb = layout[1] == 'T' ? CUBLAS_OP_T : CUBLAS_OP_N;
    // cuBLAS is column-major: as PyTorch calls it for y[tokens, out] = x W^T, its M is the output features (our n)
    // and its N the tokens (our m).
    const std::uint64_t M = s.n, N = s.m, K = s.k;
    const cudaDataType_t in = input_type(s.dtype);
    const cudaDataType_t out =
        s.fp32_accumulate ? CUDA_R_32F : (s.dtype == "fp16" ? CUDA_R_16F : CUDA_R_16BF);
    check_cublas(lt.desc_create(&desc_, CUBLAS_COMPUTE_32F, CUDA_R_32F), "matmul desc");
    check_cublas(lt.desc_set(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta), "transa");
    check_cublas(lt.desc_set(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb), "transb");
    if (fp8) {
      const std::int8_t fast = 1; // Transformer Engine's forward FP8 GEMMs accumulate fast
      check_cublas(lt.desc_set(desc_, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast), "fast accum");
    }
    const auto make = [&](cublasLtMatrixLayout_t* l, cudaDataType_t t, std::uint64_t rows, std::uint64_t cols) {
      check_cublas(lt.layout_create(l, t, rows, cols, static_cast<std::int64_t>(rows)), "layout");
      if (s.batch > 1) {
        const std::int32_t count  = static_cast<std::int32_t>(s.batch);
        const std::int64_t stride = static_cast<std::int64_t>(rows * cols);
        check_cublas(lt.layout_set(*l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count), "batch count");
        check_cublas(lt.layout_set(*l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride),
                     "batch stride");
      }
    };
    make(&a_, in, ta == CUBLAS_OP_T ? K : M, ta == CUBLAS_OP_T ? M : K);
    make(&b_, in, tb == CUBLAS_OP_T ? N : K, tb == CUBLAS_OP_T ? K : N);
    make(&c_, out, M, N);
    check_cublas(lt.pref_create(&pref_), "preference");
    check_cublas(lt.pref_set(pref_, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes, sizeof workspace_bytes),
                 "workspace");
    int found = 0;
    check_cublas(lt.heuristic(handle, desc_, a_, b_, c_, c_, pref_, 1, &algo_, &found), "heuristic");
    if (found == 0)
      throw std::runtime_error("cuBLASLt has no algorithm for this shape");
    beta_ = s.fp32_accumulate ? 1.0f : 0.0f;
  }
  ~LtGemm()
  {
    const CublasLt& lt = cublaslt();
    if (pref_)
      lt.pref_destroy(pref_);
    for (auto l : {a_, b_, c_})
      if (l)
        lt.layout_destroy(l);
    if (desc_)
      lt.desc_destroy(desc_);
  }
  LtGemm(const LtGemm&)            = delete;
  LtGemm& operator=(const LtGemm&) = delete;

  void run(cublasLtHandle_t handle, const void* a, const void* b, void* c, void* workspace, std::size_t workspace_bytes)
  {
    check_cublas(cublaslt().matmul(handle, desc_, &alpha_, a, a_, b, b_, &beta_, c, c_, c, c_, &algo_.algo, workspace,
                                   workspace_bytes, nullptr),
                 "matmul");
  }

private:
  cublasLtMatmulDesc_t desc_{};
  cublasLtMatrixLayout_t a_{}, b_{}, c_{};
  cublasLtMatmulPreference_t pref_{};
  cublasLtMatmulHeuristicResult_t algo_{};
  float alpha_ = 1, beta_ = 0;
};

class LtHandle {
public:
  LtHandle() { check_cublas(cublaslt().create(&h_), "cublasLtCreate"); }
  ~LtHandle() { cublaslt().destroy(h_); }
  LtHandle(const LtHandle&)            = delete;
  LtHandle& operator=(const LtHandle&) = delete;
  cublasLtHandle_t get() const { return h_; }

private:
  cublasLtHandle_t h_{};
};

// ---- element-wise kernels (bf16, 8 values per 16-byte access) ------------------------------------------------------

using Vec = uint4; // 8 bf16

/// A sum or max over the block (blockDim.x a multiple of 32, at most 1024), returned to every thread; safe to call
/// again at once (the shared slots are read before the closing barrier and written after the opening one).
template <bool Max>
__device__ float block_reduce(float v)
{
  __shared__ float warps[32];
  for (int o = 16; o > 0; o >>= 1) {
    const float other = __shfl_xor_sync(0xffffffffu, v, o);
    v                 = Max ? fmaxf(v, other) : v + other;
  }
  __syncthreads();
  if (threadIdx.x % 32 == 0)
    warps[threadIdx.x / 32] = v;
  __syncthreads();
  float r = warps[0];
  for (unsigned w = 1; w < blockDim.x / 32; ++w)
    r = Max ? fmaxf(r, warps[w]) : r + warps[w];
  return r;
}
__device__ inline float block_reduce_sum(float v) { return block_reduce<false>(v); }
__device__ inline float block_reduce_max(float v) { return block_reduce<true>(v); }

__device__ inline float gelu_tanh(float x)
{
  return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
}

template <typename Op>
__global__ void map_kernel(const Vec* __restrict__ x, const Vec* __restrict__ y, Vec* __restrict__ z, std::size_t n8,
                           std::uint8_t* __restrict__ mask, Op op)
{
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n8; i += std::size_t{gridDim.x} * blockDim.x) {
    Vec a = x[i], b = y ? y[i] : Vec{};
    const auto* av = reinterpret_cast<const __nv_bfloat16*>(&a);
    const auto* bv = reinterpret_cast<const __nv_bfloat16*>(&b);
    Vec r;
    auto* rv      = reinterpret_cast<__nv_bfloat16*>(&r);
    unsigned bits = 0;
    for (int j = 0; j < 8; ++j) {
      bool keep = true;
      rv[j]     = __float2bfloat16(op(__bfloat162float(av[j]), __bfloat162float(bv[j]), 8 * i + j, keep));
      bits |= static_cast<unsigned>(keep) << j;
    }
    z[i] = r;
    if (mask)
      mask[i] = static_cast<std::uint8_t>(bits);
  }
}

/// One row per block of 256 threads, the row held in registers (cols / 2048 vectors per thread): layer norm
/// (mean and variance, then (x - mean) / sd) or softmax (max, then the sum of exponentials).
template <bool Softmax, int PerThread>
__global__ void row_kernel(const Vec* __restrict__ x, Vec* __restrict__ z, int cols8)
{
  const Vec* row = x + static_cast<std::size_t>(blockIdx.x) * cols8;
  Vec* out       = z + static_cast<std::size_t>(blockIdx.x) * cols8;
  float v[PerThread * 8];
  for (int p = 0; p < PerThread; ++p) {
    const Vec a  = row[p * blockDim.x + threadIdx.x];
    const auto* av = reinterpret_cast<const __nv_bfloat16*>(&a);
    for (int j = 0; j < 8; ++j)
      v[p * 8 + j] = __bfloat162float(av[j]);
  }
  float a = Softmax ? -INFINITY : 0.0f, b = 0.0f;
  for (float e : v) {
    if (Softmax)
      a = fmaxf(a, e);
    else {
      a += e;
      b += e * e;
    }
  }
  if (Softmax) {
    a = block_reduce_max(a);
    for (float e : v)
      b += __expf(e - a);
    b = block_reduce_sum(b);
  } else {
    a = block_reduce_sum(a);
    b = block_reduce_sum(b);
  }
  const float n     = static_cast<float>(cols8) * 8;
  const float mean  = a / n;
  const float scale = Softmax ? 1.0f / b : rsqrtf(fmaxf(b / n - mean * mean, 0.0f) + 1e-5f);
  for (int p = 0; p < PerThread; ++p) {
    Vec r;
    auto* rv = reinterpret_cast<__nv_bfloat16*>(&r);
    for (int j = 0; j < 8; ++j)
      rv[j] = __float2bfloat16(Softmax ? __expf(v[p * 8 + j] - a) * scale : (v[p * 8 + j] - mean) * scale);
    out[p * blockDim.x + threadIdx.x] = r;
  }
}

struct AddOp {
  __device__ float operator()(float a, float b, std::size_t, bool&) const { return a + b; }
};
struct GeluOp {
  __device__ float operator()(float a, float, std::size_t, bool&) const { return gelu_tanh(a); }
};
struct DropoutOp { // p = 0.1
  __device__ float operator()(float a, float, std::size_t i, bool& keep) const
  {
    keep = hashed_value(i, 7) > -0.8f;
    return keep ? a * (1.0f / 0.9f) : 0.0f;
  }
};

__global__ void empty_kernel() {}

} // namespace

ComputeDevice compute_device()
{
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0)
    throw std::runtime_error("no CUDA device found");
  cudaDeviceProp p{};
  check_cuda(cudaGetDeviceProperties(&p, 0), "device properties");
  ComputeDevice d;
  d.name            = p.name;
  d.sms             = p.multiProcessorCount;
  d.memory_bus_bits = p.memoryBusWidth;
  check_cuda(cudaRuntimeGetVersion(&d.runtime_version), "runtime version");
  check_cuda(cudaDriverGetVersion(&d.driver_version), "driver version");
  d.cublaslt_version = static_cast<int>(cublaslt().get_version());
  return d;
}

std::vector<GemmBenchResult> bench_gemms(const std::vector<GemmBenchShape>& shapes, int trials, double min_trial_ms)
{
  std::size_t a_bytes = 1, b_bytes = 1, c_bytes = 1;
  for (const auto& s : shapes) {
    const std::size_t e     = element_bytes(s.dtype);
    const std::size_t batch = static_cast<std::size_t>(s.batch);
    // cuBLAS's A is our n x k and its B our k x m (LtGemm): each buffer holds either operand.
    const std::size_t operand = static_cast<std::size_t>(std::max(s.m, s.n) * s.k) * batch * e;
    a_bytes = std::max(a_bytes, operand);
    b_bytes = std::max(b_bytes, operand);
    c_bytes = std::max(c_bytes, static_cast<std::size_t>(s.m * s.n) * batch * (s.fp32_accumulate ? 4 : 2));
  }
  constexpr std::size_t kWorkspace = 32ull << 20; // cuBLAS's recommendation for Hopper
  DeviceBuffer<unsigned char> a(a_bytes), b(b_bytes), c(c_bytes), workspace(kWorkspace);
  fill<float>(c.get(), c_bytes / 4, 3, 0.0f);
  LtHandle handle;
  EventTimer ev;
  std::vector<GemmBenchResult> out;
  std::string filled; // the dtype A and B hold now
  for (const auto& s : shapes) {
    GemmBenchResult r;
    r.shape = s;
    try {
      if (s.dtype != filled) {
        fill_typed(s.dtype, a.get(), a_bytes / element_bytes(s.dtype), 1);
        fill_typed(s.dtype, b.get(), b_bytes / element_bytes(s.dtype), 2);
        filled = s.dtype;
      }
      LtGemm gemm(handle.get(), s, kWorkspace);
      r.seconds = median_launch_seconds(
          ev, [&] { gemm.run(handle.get(), a.get(), b.get(), c.get(), workspace.get(), kWorkspace); }, trials,
          min_trial_ms, &r.launches);
      check_cuda(cudaGetLastError(), "gemm");
    } catch (const std::runtime_error& e) {
      r.seconds = 0;
      r.error   = e.what();
      (void)cudaGetLastError();
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<ElementwiseBenchResult> bench_elementwise(std::int64_t elements, int trials)
{
  constexpr int kRow = 8192, kSoftmaxRow = 2048; // a layer norm over h = 8192; a softmax over s = 2048 keys
  const std::size_t n = static_cast<std::size_t>(std::max<std::int64_t>(elements, kRow)) / kRow * kRow;
  const std::size_t n8 = n / 8;
  DeviceBuffer<__nv_bfloat16> x(n), y(n), z(n);
  DeviceBuffer<std::uint8_t> mask(n8);
  fill<__nv_bfloat16>(x.get(), n, 5, 1.0f);
  fill<__nv_bfloat16>(y.get(), n, 6, 1.0f);
  const auto* xv = reinterpret_cast<const Vec*>(x.get());
  const auto* yv = reinterpret_cast<const Vec*>(y.get());
  auto* zv       = reinterpret_cast<Vec*>(z.get());
  const double t = 2.0 * static_cast<double>(n); // bytes of one bf16 tensor
  const unsigned grid = 132 * 16;
  EventTimer ev;
  std::vector<ElementwiseBenchResult> out;
  const auto time = [&](const char* name, double bytes, const std::function<void()>& launch) {
    const double s = median_launch_seconds(ev, launch, trials, 20.0, nullptr);
    check_cuda(cudaGetLastError(), name);
    out.push_back({name, bytes, s});
  };
  time("copy", 2 * t, [&] { check_cuda(cudaMemcpyAsync(z.get(), x.get(), t, cudaMemcpyDeviceToDevice), "copy"); });
  time("add", 3 * t, [&] {
    map_kernel<<<grid, 256>>>(xv, yv, zv, n8, nullptr, AddOp{});
  });
  time("gelu", 2 * t, [&] {
    map_kernel<<<grid, 256>>>(xv, nullptr, zv, n8, nullptr, GeluOp{});
  });
  // Dropout at p = 0.1 with its keep-mask (one bit per value, as a byte per 8): Megatron's fused bias-dropout-add
  // also reads the residual, as "add" does.
  time("dropout", 2 * t + static_cast<double>(n8), [&] {
    map_kernel<<<grid, 256>>>(xv, nullptr, zv, n8, mask.get(), DropoutOp{});
  });
  time("layernorm", 2 * t, [&] { row_kernel<false, kRow / 2048><<<n / kRow, 256>>>(xv, zv, kRow / 8); });
  time("softmax", 2 * t, [&] { row_kernel<true, kSoftmaxRow / 2048><<<n / kSoftmaxRow, 256>>>(xv, zv, kSoftmaxRow / 8); });
  return out;
}

double bench_launch_gap(int launches)
{
  EventTimer ev;
  empty_kernel<<<1, 32>>>();
  check_cuda(cudaDeviceSynchronize(), "empty kernel");
  std::vector<double> trials;
  for (int t = 0; t < 5; ++t)
    trials.push_back(ev.time_ms([] { empty_kernel<<<1, 32>>>(); }, launches) * 1e-3 / launches);
  std::sort(trials.begin(), trials.end());
  return trials[trials.size() / 2];
}

} // namespace ccsim::numerics::cuda
