// Every compressor of numerics/ on the CUDA kernel set against the CPU set: the kernels are bit-identical
// (CudaParity_test.cpp) and everything around them is the same host code, so the outputs must be equal to the
// last bit. Without a device each test says so and returns.
#include "numerics/cuda/CudaKernels.hpp"
#include "tests/support/CompressorRuns.hpp"
#include "tests/support/CudaDevice.hpp"

#include <catch2/catch.hpp>

using namespace ccsim::numerics;
using ccsim::test::no_cuda_device;

TEST_CASE("CudaCompressors: the 1-bit compressed allreduce is bit-for-bit the CPU's", "[numerics][cuda]")
{
  if (no_cuda_device())
    return;
  CHECK(ccsim::test::run_compressed_allreduce(cuda::cuda_kernels()) ==
        ccsim::test::run_compressed_allreduce(cpu_kernels()));
}

TEST_CASE("CudaCompressors: the TLq-HS and TLq and ULq reduce-scatters are bit-for-bit the CPU's", "[numerics][cuda]")
{
  if (no_cuda_device())
    return;
  for (const auto& config : {TwoLevelConfig::tlq_hs(2, 2), TwoLevelConfig::tlq(2, 2), TwoLevelConfig::ulq(2, 2)})
    CHECK(ccsim::test::run_two_level(config, cuda::cuda_kernels()) ==
          ccsim::test::run_two_level(config, cpu_kernels()));
}

TEST_CASE("CudaCompressors: qWD and qW weights are bit-for-bit the CPU's", "[numerics][cuda]")
{
  if (no_cuda_device())
    return;
  CHECK(ccsim::test::run_weight_diff(cuda::cuda_kernels()) == ccsim::test::run_weight_diff(cpu_kernels()));
}

TEST_CASE("CudaCompressors: DirectQ and AQ-SGD activations are bit-for-bit the CPU's", "[numerics][cuda]")
{
  if (no_cuda_device())
    return;
  CHECK(ccsim::test::run_activations(cuda::cuda_kernels()) == ccsim::test::run_activations(cpu_kernels()));
}
