// E3M0 rounding with an absmax scale (numerics/Fp4.hpp). frexp and ldexp are exact, so every CPU rounds alike.
#include "numerics/Fp4.hpp"

#include <cmath>

namespace ccsim::numerics {

void quantize_e3m0(const float* x, std::size_t n, float* out)
{
  float scale = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(x[i])) {
      for (std::size_t j = 0; j < n; ++j)
        out[j] = x[j];
      return;
    }
    scale = std::fmax(scale, std::fabs(x[i]));
  }
  for (std::size_t i = 0; i < n; ++i) {
    const float r = std::fabs(x[i]) / scale; // in [0, 1]
    float code    = 0;
    if (r > 0) {
      int e = 0;
      const float m = std::frexp(r, &e); // r = m·2^e, m in [0.5, 1): r lies between 2^(e-1) and 2^e
      // The nearest of 2^(e-1) and 2^e: above the midpoint 0.75·2^e go up (ties too, away from zero).
      int k = m >= 0.75f ? e : e - 1; // the code is 2^k
      if (k > 0)
        k = 0;
      if (k < -(kE3M0Steps - 1)) // below the smallest code: it or zero, whichever is nearer
        code = r >= std::ldexp(1.0f, -kE3M0Steps) ? std::ldexp(1.0f, -(kE3M0Steps - 1)) : 0.0f;
      else
        code = std::ldexp(1.0f, k);
    }
    out[i] = std::copysign(code * scale, x[i]);
  }
}

} // namespace ccsim::numerics
