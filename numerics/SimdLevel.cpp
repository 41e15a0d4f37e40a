#include "numerics/SimdLevel.hpp"

#include "numerics/SimdTarget.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>

namespace ccsim::numerics {

namespace {
std::atomic<int> g_forced{-1};
} // namespace

SimdLevel best_simd_level()
{
#if CCSIM_HAVE_X86_SIMD
  static const SimdLevel best = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")
                                    ? SimdLevel::AVX512
                                : __builtin_cpu_supports("avx2") ? SimdLevel::AVX2
                                                                 : SimdLevel::SCALAR;
  return best;
#else
  return SimdLevel::SCALAR;
#endif
}

std::optional<SimdLevel> parse_simd_level(const std::string& text)
{
  if (text == "scalar")
    return SimdLevel::SCALAR;
  if (text == "avx2")
    return SimdLevel::AVX2;
  if (text == "avx512")
    return SimdLevel::AVX512;
  return std::nullopt;
}

SimdLevel simd_level()
{
  const auto cap = [](SimdLevel l) { return std::min(l, best_simd_level()); };
  if (const int forced = g_forced.load(std::memory_order_relaxed); forced >= 0)
    return cap(static_cast<SimdLevel>(forced));
  static const SimdLevel from_env = [&] {
    const char* env = std::getenv("CCSIM_SIMD");
    const auto parsed = env != nullptr ? parse_simd_level(env) : std::nullopt;
    return parsed ? cap(*parsed) : best_simd_level(); // main rejects a bad value before any kernel runs
  }();
  return from_env;
}

void set_simd_level(std::optional<SimdLevel> level)
{
  g_forced.store(level ? static_cast<int>(*level) : -1, std::memory_order_relaxed);
}

const char* to_string(SimdLevel level)
{
  switch (level) {
  case SimdLevel::AVX512:
    return "avx512";
  case SimdLevel::AVX2:
    return "avx2";
  case SimdLevel::SCALAR:
    break;
  }
  return "scalar";
}

} // namespace ccsim::numerics
