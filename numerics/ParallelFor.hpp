#pragma once
// Independent work items on a few threads. Each thread takes a fixed contiguous range of [0, n) and the items must
// not share writes, so a result never depends on how many threads ran it: `ccsim train` stays deterministic per
// seed on any machine. Threads: std::thread::hardware_concurrency(), or CCSIM_THREADS when set (1 = serial).

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <exception>
#include <thread>
#include <vector>

namespace ccsim::numerics {

inline std::size_t worker_threads()
{
  if (const char* env = std::getenv("CCSIM_THREADS"); env != nullptr && std::atoi(env) > 0)
    return static_cast<std::size_t>(std::atoi(env));
  return std::max(1u, std::thread::hardware_concurrency());
}

/// fn(i) for every i in [0, n); the first exception thrown by any item is rethrown here.
template <class Fn>
void parallel_for(std::size_t n, Fn&& fn)
{
  const std::size_t threads = std::min(n, worker_threads());
  if (threads <= 1) {
    for (std::size_t i = 0; i < n; ++i)
      fn(i);
    return;
  }
  std::vector<std::exception_ptr> errors(threads);
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      try {
        for (std::size_t i = n * t / threads; i < n * (t + 1) / threads; ++i)
          fn(i);
      } catch (...) {
        errors[t] = std::current_exception();
      }
    });
  for (auto& th : pool)
    th.join();
  for (const auto& e : errors)
    if (e)
      std::rethrow_exception(e);
}

} // namespace ccsim::numerics
