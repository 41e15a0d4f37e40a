// Device discovery for the CUDA backend. A missing driver is "no device", never an error.
#include "numerics/cuda/Device.hpp"

#include <cuda_runtime.h>

namespace ccsim::numerics::cuda {
bool built_with_cuda() noexcept { return true; }

int device_count() noexcept
{
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError(); // clear the sticky "no driver" error
    return 0;
  }
  return count;
}
} // namespace ccsim::numerics::cuda
