#pragma once
// Device memory for the CUDA backend's host code: error checks, an owning buffer, grow-only scratch, and typed
// copies. Shared by the benchmark (KernelBenchCuda.cu) and the kernel set the training loops use (CudaKernels.cu).

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace ccsim::numerics::cuda {

inline void check_cuda(cudaError_t e, const char* what)
{
  if (e != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

/// Blocks of `threads` covering n items (n > 0: callers return early on empty input, never launch nothing).
inline unsigned blocks_for(std::size_t n, unsigned threads)
{
  return static_cast<unsigned>((n + threads - 1) / threads);
}

/// Whether p is a multiple of `bytes` (a power of two) from address 0: the condition for moving what it points at
/// by vector loads and stores (float4: 16, a packed 32-bit word of codes: 4). cudaMalloc's buffers are 256-aligned.
__host__ __device__ inline bool aligned_to(const void* p, std::size_t bytes)
{
  return reinterpret_cast<std::uintptr_t>(p) % bytes == 0;
}

/// Owns device memory; never leaks on an error path.
template <typename T>
class DeviceBuffer {
public:
  explicit DeviceBuffer(std::size_t n) : n_(n)
  {
    check_cuda(cudaMalloc(&p_, std::max<std::size_t>(1, n) * sizeof(T)), "cudaMalloc");
  }
  ~DeviceBuffer() { cudaFree(p_); }
  DeviceBuffer(const DeviceBuffer&)            = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  T* get() const { return p_; }
  std::size_t size() const { return n_; }
  void upload(const T* h) { check_cuda(cudaMemcpy(p_, h, n_ * sizeof(T), cudaMemcpyHostToDevice), "upload"); }
  void download(T* h) const { check_cuda(cudaMemcpy(h, p_, n_ * sizeof(T), cudaMemcpyDeviceToHost), "download"); }

private:
  T* p_ = nullptr;
  std::size_t n_;
};

/// Device scratch of this thread for slot `slot`, at least `bytes` long, grown and never shrunk. The training
/// loops call the same kernels on the same sizes every step, so after the first step no call allocates (a
/// cudaMalloc/cudaFree pair per call would cost more than the copies). Freed when the thread ends.
inline void* device_scratch_bytes(std::size_t slot, std::size_t bytes)
{
  thread_local std::vector<std::unique_ptr<DeviceBuffer<unsigned char>>> slots;
  if (slots.size() <= slot)
    slots.resize(slot + 1);
  if (!slots[slot] || slots[slot]->size() < bytes)
    slots[slot] = std::make_unique<DeviceBuffer<unsigned char>>(bytes);
  return slots[slot]->get();
}

/// device_scratch_bytes for n elements of T (cudaMalloc aligns to 256 bytes, enough for any T).
template <typename T>
T* device_scratch(std::size_t slot, std::size_t n)
{
  return static_cast<T*>(device_scratch_bytes(slot, std::max<std::size_t>(1, n) * sizeof(T)));
}

/// Host -> device and device -> host copies of n elements; synchronous on the default stream, as every kernel
/// launched by the host code here, so a download sees the results of the kernels before it.
template <typename T>
void upload(T* d_dst, const T* src, std::size_t n)
{
  check_cuda(cudaMemcpy(d_dst, src, n * sizeof(T), cudaMemcpyHostToDevice), "upload");
}

template <typename T>
void download(T* dst, const T* d_src, std::size_t n)
{
  check_cuda(cudaMemcpy(dst, d_src, n * sizeof(T), cudaMemcpyDeviceToHost), "download");
}

} // namespace ccsim::numerics::cuda
