// quantize_groups_packed with AVX2, 8 values per step: the per-element rules of numerics/GroupQuantizerPaths.hpp in
// vector lanes (AVX2 has no 64-bit multiply: it is built from 32-bit ones), the codes packed in registers.
#include "numerics/GroupQuantizerPaths.hpp"
#include "numerics/SimdTarget.hpp"

#include <cmath>
#include <cstring>

namespace ccsim::numerics::detail {

#if CCSIM_HAVE_X86_SIMD
namespace {
// The draws. AVX2 has no 64-bit multiply, so a · c mod 2^64 is built from 32-bit products: lo(a)·lo(c) in 64 bits
// (vpmuludq), plus the two cross products' low 32 bits, shifted up 32. Both cross products come from one vpmulld of a
// by c with its halves swapped (lane 2k: lo(a)·hi(c), lane 2k+1: hi(a)·lo(c), each mod 2^32).
/// The constant c as the two operands mul64 and mul64_high take: lo(c) in each qword, and c with its halves swapped.
struct Mix {
  __m256i lo, swapped;
};
CCSIM_TARGET_AVX2 inline Mix mix(std::uint64_t c)
{
  return {_mm256_set1_epi64x(static_cast<long long>(c & 0xFFFFFFFFu)),
          _mm256_set1_epi64x(static_cast<long long>((c >> 32) | (c << 32)))};
}

/// a · c mod 2^64 for 4 lanes.
CCSIM_TARGET_AVX2 inline __m256i mul64(__m256i a, Mix c)
{
  const __m256i lolo  = _mm256_mul_epu32(a, c.lo);
  const __m256i cross = _mm256_mullo_epi32(a, c.swapped);
  const __m256i sum   = _mm256_add_epi32(cross, _mm256_slli_epi64(cross, 32)); // odd dwords: the two cross terms
  return _mm256_add_epi32(lolo, _mm256_blend_epi32(_mm256_setzero_si256(), sum, 0xAA));
}

/// The top 32 bits of a · c mod 2^64 in each qword's high dword (its low dword is not a product's).
CCSIM_TARGET_AVX2 inline __m256i mul64_high(__m256i a, Mix c)
{
  const __m256i lolo  = _mm256_mul_epu32(a, c.lo);
  const __m256i cross = _mm256_mullo_epi32(a, c.swapped);
  return _mm256_add_epi32(_mm256_add_epi32(lolo, cross), _mm256_slli_epi64(cross, 32));
}

/// Bits 32..63 of the finalised draws of 4 lanes whose index·GOLDEN products are `ig`, in each qword's high dword:
/// u reads bits 40..63, which the finaliser's last z ^= z >> 31 does not change.
CCSIM_TARGET_AVX2 inline __m256i draw_high(__m256i seed, __m256i ig, Mix mix1, Mix mix2)
{
  __m256i z = _mm256_add_epi64(_mm256_xor_si256(seed, ig), _mm256_set1_epi64x(static_cast<long long>(GOLDEN)));
  z         = mul64(_mm256_xor_si256(z, _mm256_srli_epi64(z, 30)), mix1);
  return mul64_high(_mm256_xor_si256(z, _mm256_srli_epi64(z, 27)), mix2);
}

/// max|x| of m values: max_ps(a, acc) keeps acc when a is NaN, as the scalar `acc < a ? a : acc`.
CCSIM_TARGET_AVX2 float absmax(const float* x, std::size_t m)
{
  const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
  __m256 acc            = _mm256_setzero_ps();
  std::size_t i         = 0;
  for (; i + 8 <= m; i += 8)
    acc = _mm256_max_ps(_mm256_and_ps(_mm256_loadu_ps(x + i), abs_mask), acc);
  __m128 r = _mm_max_ps(_mm256_castps256_ps128(acc), _mm256_extractf128_ps(acc, 1));
  r        = _mm_max_ps(r, _mm_movehl_ps(r, r));
  r        = _mm_max_ss(r, _mm_shuffle_ps(r, r, 1));
  float a  = _mm_cvtss_f32(r);
  for (; i < m; ++i)
    a = std::max(a, std::fabs(x[i]));
  return a;
}

/// 8 codes (x·inv rounded, clamped) as int32 lanes.
template <bool STOCHASTIC>
CCSIM_TARGET_AVX2 inline __m256i codes8(const float* x, __m256 inv, __m256 qmax, __m256 nqmax,
                                        [[maybe_unused]] __m256i seed, [[maybe_unused]] __m256i ig_even,
                                        [[maybe_unused]] __m256i ig_odd, [[maybe_unused]] Mix mix1,
                                        [[maybe_unused]] Mix mix2)
{
  const __m256 v = _mm256_mul_ps(_mm256_loadu_ps(x), inv);
  __m256 c;
  if constexpr (STOCHASTIC) {
    const __m256 one = _mm256_set1_ps(1.0f);
    // Elements 0, 2, 4, 6 draw from ig_even and 1, 3, 5, 7 from ig_odd, so one blend puts the 8 draws' bits 32..63
    // in element order; bits 40..63 (< 2^24) convert exactly through int32.
    const __m256i high = _mm256_blend_epi32(_mm256_srli_epi64(draw_high(seed, ig_even, mix1, mix2), 32),
                                            draw_high(seed, ig_odd, mix1, mix2), 0xAA);
    const __m256 u     = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_srli_epi32(high, 8)),
                                       _mm256_set1_ps(1.0f / 16777216.0f));
    __m256 lower      = _mm256_cvtepi32_ps(_mm256_cvttps_epi32(v)); // floor_small
    lower             = _mm256_sub_ps(lower, _mm256_and_ps(_mm256_cmp_ps(lower, v, _CMP_GT_OQ), one));
    const __m256 up   = _mm256_and_ps(_mm256_cmp_ps(u, _mm256_sub_ps(v, lower), _CMP_LT_OQ), one);
    c                 = _mm256_add_ps(lower, up);
  } else {
    const __m256 magic = _mm256_set1_ps(12582912.0f); // round_half_even
    c                  = _mm256_sub_ps(_mm256_add_ps(v, magic), magic);
  }
  // std::min(qmax, std::max(-qmax, c)): max_ps/min_ps return their second operand on NaN, as std::max/min do here.
  return _mm256_cvttps_epi32(_mm256_min_ps(_mm256_max_ps(c, nqmax), qmax));
}

template <bool STOCHASTIC, int BITS>
CCSIM_TARGET_AVX2 void encode_group(const float* x, std::size_t m, float inv, float qmax, std::uint64_t seed,
                                    std::uint64_t first, std::uint8_t* codes)
{
  const __m256 vinv = _mm256_set1_ps(inv), vq = _mm256_set1_ps(qmax), vnq = _mm256_set1_ps(-qmax);
  const __m256i vseed = _mm256_set1_epi64x(static_cast<long long>(seed));
  const auto ig       = [](std::uint64_t i) { return static_cast<long long>(i * GOLDEN); };
  __m256i ig_even     = _mm256_setr_epi64x(ig(first), ig(first + 2), ig(first + 4), ig(first + 6));
  __m256i ig_odd      = _mm256_setr_epi64x(ig(first + 1), ig(first + 3), ig(first + 5), ig(first + 7));
  const Mix mix1 = mix(MIX1), mix2 = mix(MIX2);
  const __m256i step  = _mm256_set1_epi64x(static_cast<long long>(8 * GOLDEN));
  std::size_t i       = 0;
  for (; i + 8 <= m; i += 8) {
    const __m256i q  = codes8<STOCHASTIC>(x + i, vinv, vq, vnq, vseed, ig_even, ig_odd, mix1, mix2);
    const __m128i lo = _mm256_castsi256_si128(q), hi = _mm256_extracti128_si256(q, 1);
    if constexpr (BITS == 8) {
      const __m128i w = _mm_packs_epi32(lo, hi); // codes are within ±127: no saturation
      _mm_storel_epi64(reinterpret_cast<__m128i*>(codes + i), _mm_packs_epi16(w, w));
    } else {
      // Qword k holds codes 2k (low dword) and 2k+1: byte = (c_2k << 4) | (c_2k+1 & 0xF) in its low dword.
      const __m256i nib  = _mm256_and_si256(q, _mm256_set1_epi32(0xF));
      const __m256i byte = _mm256_or_si256(_mm256_slli_epi64(nib, 4), _mm256_srli_epi64(nib, 32));
      const __m256i low  = _mm256_permutevar8x32_epi32(byte, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6));
      const __m128i w    = _mm_packus_epi32(_mm256_castsi256_si128(low), _mm256_castsi256_si128(low));
      const int packed   = _mm_cvtsi128_si32(_mm_packus_epi16(w, w));
      std::memcpy(codes + i / 2, &packed, 4);
    }
    if constexpr (STOCHASTIC) {
      ig_even = _mm256_add_epi64(ig_even, step);
      ig_odd  = _mm256_add_epi64(ig_odd, step);
    }
  }
  encode_range_scalar(x + i, m - i, BITS, STOCHASTIC ? Rounding::STOCHASTIC : Rounding::NEAREST, inv, qmax, seed,
                      first + i, codes + i * BITS / 8);
}

} // namespace

const GroupKernels AVX2_GROUP_KERNELS = {absmax,
                                        {{encode_group<false, 4>, encode_group<true, 4>},
                                         {encode_group<false, 8>, encode_group<true, 8>}}};
#endif

} // namespace ccsim::numerics::detail
