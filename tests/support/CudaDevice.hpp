#pragma once
// Test helper: whether a CUDA test can run. Without a device (the build and CI machines) the test says so and
// returns: Catch2 v2 has no SKIP.

#include "numerics/cuda/Device.hpp"

#include <catch2/catch.hpp>

#include <string>

namespace ccsim::test {

inline bool no_cuda_device()
{
  if (numerics::cuda::device_count() > 0)
    return false;
  WARN(std::string("no CUDA device: skipped (") +
       (numerics::cuda::built_with_cuda() ? "built with CUDA" : "built without CUDA") + ")");
  return true;
}

} // namespace ccsim::test
