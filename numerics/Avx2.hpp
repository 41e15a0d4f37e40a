#pragma once
// Whether the hand-vectorised AVX2 paths of the CPU kernels are compiled (GCC/Clang on x86-64; each path is
// selected per function with target attributes and a run-time CPU check, and gives results identical to the scalar
// loop it replaces).

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define CCSIM_HAVE_AVX2_PATH 1
#else
#define CCSIM_HAVE_AVX2_PATH 0
#endif
