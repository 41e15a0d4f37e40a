#include "api/run/Backends.hpp"

#include "numerics/cuda/CudaKernels.hpp"
#include "numerics/cuda/Device.hpp"
#include "numerics/cuda/KernelBenchCuda.hpp"
#include "numerics/SimdLevel.hpp"
#include "io/JsonInput.hpp"

namespace ccsim::api {

namespace {
void require_device()
{
  if (numerics::cuda::device_count() == 0)
    throw io::InputError("--backend", "", numerics::cuda::built_with_cuda() ? "cuda: no CUDA device found"
                                                                             : "cuda: ccsim was built without CUDA");
}
} // namespace

const numerics::CompressionKernels& kernels_for(const std::string& backend)
{
  if (backend != "cuda")
    return numerics::cpu_kernels();
  require_device();
  return numerics::cuda::cuda_kernels();
}

std::vector<numerics::KernelRate> bench_kernels(const std::string& backend, std::uint64_t bytes, int repeats,
                                                std::size_t threads)
{
  if (backend != "cuda")
    return numerics::bench_cpu(bytes, repeats, threads);
  require_device();
  std::vector<numerics::KernelRate> rows;
  // The CUDA benchmark times its kernels one after another, memcpy first (numerics/cuda/KernelBenchCuda.hpp): its
  // ratios are against that row's rate.
  const auto timed = numerics::cuda::bench_kernels(bytes, repeats);
  for (const auto& r : timed)
    rows.push_back({r.kernel, "cuda", r.bytes, r.gbps, r.gbps / timed.front().gbps});
  return rows;
}

nlohmann::json bench_kernels_json(const std::vector<numerics::KernelRate>& rows, std::size_t threads)
{
  nlohmann::json doc = {{"simd", numerics::to_string(numerics::simd_level())},
                        {"threads", threads},
                        {"rows", nlohmann::json::array()}};
  for (const auto& r : rows)
    doc["rows"].push_back({{"kernel", r.kernel}, {"backend", r.backend}, {"bytes", r.bytes}, {"GBps", r.gbps},
                           {"vs_memcpy", r.vs_memcpy}});
  return doc;
}

} // namespace ccsim::api
