// Built instead of the .cu files when CCSIM_CUDA is OFF: the backend reports itself absent.
#include "numerics/cuda/ComputeBenchCuda.hpp"
#include "numerics/cuda/CudaKernels.hpp"
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
const CompressionKernels& cuda_kernels() { absent(); }
std::vector<CudaKernelRate> bench_kernels(std::uint64_t, int) { absent(); }
void pack_signs_host(const float*, std::size_t, std::uint8_t*) { absent(); }
ComputeDevice compute_device() { absent(); }
std::vector<GemmBenchResult> bench_gemms(const std::vector<GemmBenchShape>&, int, double) { absent(); }
std::vector<ElementwiseBenchResult> bench_elementwise(std::int64_t, int) { absent(); }
double bench_launch_gap(int) { absent(); }
} // namespace ccsim::numerics::cuda
