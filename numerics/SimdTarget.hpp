#pragma once
// The function attributes of the hand-vectorised paths (numerics/SimdLevel.hpp picks one at run time). The project
// builds without -march flags, so each vector function carries its own target and runs only after the CPU check.
// Every path gives results bit-identical to the scalar loop it replaces: the same fp32 operations on the same
// operands in the same order (an explicit fused multiply-add only where it is exact), and the stochastic draw of
// each element a function of (seed, index) only (numerics/GroupQuantizer.hpp), so vector width cannot change it.

// CCSIM_SCALAR_BUILD (the scalar test build of tests/algorithms/TrainingBytes_test.cpp) leaves them all out.
#if defined(__GNUC__) && defined(__x86_64__) && !defined(CCSIM_SCALAR_BUILD)
#include <immintrin.h>
#define CCSIM_HAVE_X86_SIMD 1
#define CCSIM_TARGET_AVX2 __attribute__((target("avx2")))
/// F for the core, DQ for 64-bit multiplies: exactly what best_simd_level() checks.
#define CCSIM_TARGET_AVX512 __attribute__((target("avx512f,avx512dq,avx2")))
#else
#define CCSIM_HAVE_X86_SIMD 0
#endif
