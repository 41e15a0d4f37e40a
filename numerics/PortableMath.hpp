#pragma once
// exp, log and pow from +, -, *, / and exact scaling by powers of two only, so every machine computes the same bits
// (issue 42). glibc picks an FMA or an SSE2 version of exp, log, pow and expf when the program starts (ifunc), and
// the versions round some inputs differently. Measured on glibc 2.36 (Debian 12) by forcing the SSE2 versions with
// GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA: exp, log and pow differ on 20 M random inputs, expf on some of all
// 2^32 float inputs; logf, erff and tanhf agree on every float input, so the proxies keep those. The learning-rate
// schedules and Adam's bias corrections use the double functions below, the proxies' softmax and GELU portable_expf.

#include <cstdint>
#include <cstring>

namespace ccsim::numerics {

/// e^x for a float, computed in double (Cody-Waite reduction by ln 2, then the degree-7 Taylor polynomial of e^r on
/// |r| <= ln 2 / 2, whose truncation error is below 0.13 units in the last place of a float), rounded once to float:
/// inline so the proxies' loops vectorise it. +inf above 88.73, 0 (through the subnormals) below -103.98, NaN for
/// NaN.
inline float portable_expf(float x)
{
  if (!(x == x))
    return x;
  const double xd = x < -150.0f ? -150.0 : (x > 100.0f ? 100.0 : static_cast<double>(x));
  // k = round-to-nearest(x / ln 2): adding and subtracting 1.5·2^52 leaves the integer (exact for |k| < 2^51).
  constexpr double kRound = 0x1.8p52;
  const double k          = (xd * 0x1.71547652b82fep+0 + kRound) - kRound;
  const double r          = (xd - k * 0x1.62e42fefa3800p-1) - k * 0x1.ef35793c7673p-45; // two-part ln 2
  double p = 1.0 / 5040;
  p        = p * r + 1.0 / 720;
  p        = p * r + 1.0 / 120;
  p        = p * r + 1.0 / 24;
  p        = p * r + 1.0 / 6;
  p        = p * r + 0.5;
  p        = p * r + 1.0;
  p        = p * r + 1.0;
  // 2^k from its bits (k in [-217, 145]: a normal double), then one rounding to float.
  const std::uint64_t bits = static_cast<std::uint64_t>(static_cast<std::int64_t>(k) + 1023) << 52;
  double scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return static_cast<float>(p * scale);
}

/// e^x; +inf above 709.78, 0 below -745.13, NaN for NaN.
double portable_exp(double x);
/// ln x for x > 0; -inf at 0, NaN below 0 or for NaN, +inf at +inf.
double portable_log(double x);
/// base^exponent for base > 0 as e^(exponent·ln base); 1 when exponent is 0; base 0 gives 0 for a positive exponent.
double portable_pow(double base, double exponent);

} // namespace ccsim::numerics
