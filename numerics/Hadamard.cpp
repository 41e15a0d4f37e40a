// Fast Walsh-Hadamard butterflies on blocks of 32.
#include "numerics/Hadamard.hpp"

#include <cassert>
#include <cmath>

namespace ccsim::numerics {

void hadamard32(float* x, std::size_t n)
{
  assert(n % 32 == 0);
  const float norm = 1.0f / std::sqrt(32.0f);
  for (std::size_t b = 0; b < n; b += 32) {
    float* v = x + b;
    for (int h = 1; h < 32; h *= 2)
      for (int i = 0; i < 32; i += 2 * h)
        for (int j = i; j < i + h; ++j) {
          const float a = v[j], c = v[j + h];
          v[j]     = a + c;
          v[j + h] = a - c;
        }
    for (int i = 0; i < 32; ++i)
      v[i] *= norm;
  }
}

} // namespace ccsim::numerics
