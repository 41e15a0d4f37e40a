// Built instead of the .cu files when CCSIM_CUDA is OFF: the backend reports itself absent.
#include "numerics/cuda/Device.hpp"
#include "numerics/cuda/KernelBenchCuda.hpp"

#include <stdexcept>

namespace ccsim::numerics::cuda {
namespace {
[[noreturn]] void absent()
{
  throw std::runtime_error("ccsim was built without CUDA");
}
} // namespace

bool built_with_cuda() noexcept { return false; }
int device_count() noexcept { return 0; }
std::vector<CudaKernelRate> bench_kernels(std::uint64_t, int) { absent(); }
void pack_signs_host(const float*, std::size_t, std::uint8_t*) { absent(); }
float compress_with_feedback_host(const float*, float*, std::size_t, std::uint8_t*) { absent(); }
void quantize_groups_host(const float*, std::size_t, int, std::size_t, bool, std::uint64_t, std::int8_t*, float*) { absent(); }
void hadamard32_host(float*, std::size_t) { absent(); }
void unpack_signs_host(const std::uint8_t*, std::size_t, float, float*) { absent(); }
void dequantize_groups_host(const std::int8_t*, const float*, std::size_t, std::size_t, float*) { absent(); }
void gather_host(const float*, std::size_t, const std::uint32_t*, std::size_t, float*) { absent(); }
void scatter_host(const float*, const std::uint32_t*, std::size_t, float*, std::size_t) { absent(); }
void quantize_delta_channels_host(const float*, float*, std::size_t, std::size_t, int, std::int8_t*, float*) { absent(); }
std::vector<std::uint32_t> top_k_host(const float*, std::size_t, std::size_t) { absent(); }
} // namespace ccsim::numerics::cuda
