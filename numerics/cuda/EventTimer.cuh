#pragma once
// Timing on the device's own clock: a pair of CUDA events around back-to-back launches, and the median over trials.
// Shared by the two device benchmarks (KernelBenchCuda.cu, ComputeBenchCuda.cu).

#include "numerics/cuda/DeviceMemory.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

namespace ccsim::numerics::cuda {

/// Two events, destroyed with the object (also on an error path).
class EventTimer {
public:
  EventTimer()
  {
    check_cuda(cudaEventCreate(&start_), "event");
    check_cuda(cudaEventCreate(&stop_), "event");
  }
  ~EventTimer()
  {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventTimer(const EventTimer&)            = delete;
  EventTimer& operator=(const EventTimer&) = delete;

  /// Milliseconds of `launches` back-to-back calls of `launch` on the default stream.
  float time_ms(const std::function<void()>& launch, int launches)
  {
    check_cuda(cudaEventRecord(start_), "event record");
    for (int i = 0; i < launches; ++i)
      launch();
    check_cuda(cudaEventRecord(stop_), "event record");
    check_cuda(cudaEventSynchronize(stop_), "event sync");
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, start_, stop_), "elapsed");
    return ms;
  }

private:
  cudaEvent_t start_{}, stop_{};
};

/// Median per-launch seconds over `trials`, each of enough launches to run >= min_trial_ms (one launch where that is
/// 0), after one warm-up launch (first-call costs: a library's kernel load, cold caches) and one timed launch that
/// sizes the trial. `launches_out`, where given, receives the launches per trial.
inline double median_launch_seconds(EventTimer& timer, const std::function<void()>& launch, int trials,
                                    double min_trial_ms, int* launches_out)
{
  launch();
  const float one    = std::max(timer.time_ms(launch, 1), 1e-3f);
  const int launches = static_cast<int>(std::clamp(std::ceil(min_trial_ms / one), 1.0, 2000.0));
  std::vector<double> per_launch;
  for (int t = 0; t < trials; ++t)
    per_launch.push_back(timer.time_ms(launch, launches) * 1e-3 / launches);
  std::sort(per_launch.begin(), per_launch.end());
  if (launches_out)
    *launches_out = launches;
  return per_launch[per_launch.size() / 2];
}

} // namespace ccsim::numerics::cuda
