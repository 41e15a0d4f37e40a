#pragma once
// Which vector path the CPU kernels take (issue 13): one binary runs on any x86-64 and uses the best the CPU has —
// AVX-512 (F + DQ: native 64-bit multiplies for the stochastic-rounding hash), AVX2, or the portable scalar loops.
// Every path gives the same bits (tests/numerics/SimdPaths_test.cpp holds each one to the scalar path).
// CCSIM_SIMD=scalar|avx2|avx512 caps the choice (never above what the CPU has); main validates it.

#include <optional>
#include <string>

namespace ccsim::numerics {

enum class SimdLevel { SCALAR = 0, AVX2 = 1, AVX512 = 2 };

/// The best level this CPU (and this build) supports.
SimdLevel best_simd_level();
/// The level the kernels use: the override if set, else CCSIM_SIMD (capped at the best), else the best.
SimdLevel simd_level();
/// Tests: force a level (capped at the best), or nullopt to return to the default.
void set_simd_level(std::optional<SimdLevel> level);
/// "scalar", "avx2", "avx512".
const char* to_string(SimdLevel level);
/// Parses CCSIM_SIMD's value; nullopt when it is none of the three names.
std::optional<SimdLevel> parse_simd_level(const std::string& text);

} // namespace ccsim::numerics
