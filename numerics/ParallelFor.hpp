#pragma once
// Independent work items on a few threads. Each thread takes a fixed contiguous range of [0, n) and the items must
// not share writes, so a result never depends on how many threads ran it: `ccsim train` stays deterministic per
// seed on any machine. Threads: std::thread::hardware_concurrency(), or CCSIM_THREADS when set (1 = serial).

#include <algorithm>
#include <charconv>
#include <string>
#include <cstddef>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace ccsim::numerics {

/// CCSIM_THREADS as a thread count, or 0 when it is unset or not a whole number in [1, 1024] (`ccsim` itself rejects
/// such a value at start-up with a one-line error, cli/main.cpp).
inline std::size_t threads_from_environment()
{
  const char* env = std::getenv("CCSIM_THREADS");
  if (env == nullptr)
    return 0;
  std::size_t v      = 0;
  const char* end    = env + std::char_traits<char>::length(env);
  const auto [p, ec] = std::from_chars(env, end, v);
  return ec == std::errc() && p == end && v >= 1 && v <= 1024 ? v : 0;
}

inline std::size_t worker_threads()
{
  if (const std::size_t n = threads_from_environment(); n > 0)
    return n;
  return std::max(1u, std::thread::hardware_concurrency());
}

/// The system would not start another thread (an address-space or process limit): what ran of the work is joined,
/// and the message says how many threads were asked for and how many started.
class ThreadStartError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// fn(i) for every i in [0, n) on at most `max_threads` threads; the first exception thrown by any item is rethrown
/// here, and a thread that cannot be started is a ThreadStartError (never std::terminate from a joinable thread).
template <class Fn>
void parallel_for_on(std::size_t max_threads, std::size_t n, Fn&& fn)
{
  const std::size_t threads = std::min(n, max_threads);
  if (threads <= 1) {
    for (std::size_t i = 0; i < n; ++i)
      fn(i);
    return;
  }
  std::vector<std::exception_ptr> errors(threads);
  std::vector<std::thread> pool;
  pool.reserve(threads);
  try {
    for (std::size_t t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        try {
          for (std::size_t i = n * t / threads; i < n * (t + 1) / threads; ++i)
            fn(i);
        } catch (...) {
          errors[t] = std::current_exception();
        }
      });
  } catch (const std::system_error& e) {
    for (auto& th : pool)
      th.join();
    throw ThreadStartError("cannot start " + std::to_string(threads) + " threads: the system refused thread " +
                           std::to_string(pool.size() + 1) + " (" + e.what() + "); use fewer threads");
  }
  for (auto& th : pool)
    th.join();
  for (const auto& e : errors)
    if (e)
      std::rethrow_exception(e);
}

/// fn(i) for every i in [0, n) on worker_threads() threads.
template <class Fn>
void parallel_for(std::size_t n, Fn&& fn)
{
  parallel_for_on(worker_threads(), n, std::forward<Fn>(fn));
}

/// fn(begin, end) over `threads` contiguous ranges covering [0, n) whose boundaries are multiples of `unit` (the
/// last range takes the remainder): kernels split where a group or a packed byte ends, so each range computes
/// exactly what the whole call computes there.
template <class Fn>
void parallel_ranges(std::size_t threads, std::size_t n, std::size_t unit, Fn&& fn)
{
  const std::size_t units = (n + unit - 1) / unit;
  const std::size_t parts = std::max<std::size_t>(1, std::min(threads, units));
  parallel_for_on(parts, parts, [&](std::size_t t) {
    const std::size_t begin = std::min(n, units * t / parts * unit);
    const std::size_t end   = std::min(n, units * (t + 1) / parts * unit);
    if (begin < end)
      fn(begin, end);
  });
}

} // namespace ccsim::numerics
