// Built instead of the .cu files when CCSIM_CUDA is OFF: the backend reports itself absent.
#include "numerics/cuda/Device.hpp"

namespace ccsim::numerics::cuda {
bool built_with_cuda() noexcept { return false; }
int device_count() noexcept { return 0; }
} // namespace ccsim::numerics::cuda
