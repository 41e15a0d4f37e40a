// quantize_groups_packed with AVX-512, 16 values per step: the per-element rules of numerics/GroupQuantizerPaths.hpp
// in vector lanes (64-bit multiplies for the splitmix draw with AVX-512DQ), the codes packed in registers.
#include "numerics/GroupQuantizerPaths.hpp"
#include "numerics/SimdTarget.hpp"

#include <cmath>

namespace ccsim::numerics::detail {

#if CCSIM_HAVE_X86_SIMD
// GCC 12's AVX-512 intrinsics start from a self-initialised "undefined" register that -Wmaybe-uninitialized flags
// once inlined into a target("avx512f") function (GCC bug 105593, fixed in GCC 13): a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
namespace {
/// The draws of 8 lanes whose index·GOLDEN products are `ig`, before the shift to their top 24 bits (bits 0..32 differ
/// from splitmix64's by its last z ^= z >> 31, which the draw never reads: GroupQuantizerPaths.hpp).
CCSIM_TARGET_AVX512 inline __m512i draw64(__m512i seed, __m512i ig)
{
  __m512i z = _mm512_add_epi64(_mm512_xor_si512(seed, ig), _mm512_set1_epi64(static_cast<long long>(GOLDEN)));
  z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 30)), _mm512_set1_epi64(static_cast<long long>(MIX1)));
  return _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 27)), _mm512_set1_epi64(static_cast<long long>(MIX2)));
}

/// max|x| of m values: max_ps(a, acc) keeps acc when a is NaN, as the scalar `acc < a ? a : acc`.
CCSIM_TARGET_AVX512 float absmax(const float* x, std::size_t m)
{
  __m512 acc    = _mm512_setzero_ps();
  std::size_t i = 0;
  for (; i + 16 <= m; i += 16)
    acc = _mm512_max_ps(_mm512_abs_ps(_mm512_loadu_ps(x + i)), acc);
  float r = _mm512_reduce_max_ps(acc);
  for (; i < m; ++i)
    r = std::max(r, std::fabs(x[i]));
  return r;
}

/// 16 codes (x·inv rounded, clamped) as int32 lanes. `first` is the draw index of x[0].
template <bool STOCHASTIC>
CCSIM_TARGET_AVX512 inline __m512i codes16(const float* x, __m512 inv, __m512 qmax, __m512 nqmax, [[maybe_unused]] __m512i seed,
                                            [[maybe_unused]] __m512i ig0, [[maybe_unused]] __m512i ig1)
{
  const __m512 v = _mm512_mul_ps(_mm512_loadu_ps(x), inv);
  __m512 c;
  if constexpr (STOCHASTIC) {
    const __m512 one    = _mm512_set1_ps(1.0f);
    // z >> 40 is the high dword of z shifted by 8: one permute gathers the 16 high dwords, one shift does all 16.
    const __m512i odd   = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    const __m512i d     = _mm512_srli_epi32(_mm512_permutex2var_epi32(draw64(seed, ig0), odd, draw64(seed, ig1)), 8);
    const __m512 u      = _mm512_mul_ps(_mm512_cvtepi32_ps(d), _mm512_set1_ps(1.0f / 16777216.0f));
    const __m512 t      = _mm512_cvtepi32_ps(_mm512_cvttps_epi32(v));                      // floor_small
    const __m512 lower  = _mm512_mask_sub_ps(t, _mm512_cmp_ps_mask(t, v, _CMP_GT_OQ), t, one);
    const __mmask16 up  = _mm512_cmp_ps_mask(u, _mm512_sub_ps(v, lower), _CMP_LT_OQ);
    c                   = _mm512_mask_add_ps(lower, up, lower, one);
  } else {
    const __m512 magic = _mm512_set1_ps(12582912.0f); // round_half_even
    c                  = _mm512_sub_ps(_mm512_add_ps(v, magic), magic);
  }
  // std::min(qmax, std::max(-qmax, c)): max_ps/min_ps return their second operand on NaN, as std::max/min do here.
  return _mm512_cvttps_epi32(_mm512_min_ps(_mm512_max_ps(c, nqmax), qmax));
}

template <bool STOCHASTIC, int BITS>
CCSIM_TARGET_AVX512 void encode_group(const float* x, std::size_t m, float inv, float qmax, std::uint64_t seed,
                                      std::uint64_t first, std::uint8_t* codes)
{
  const __m512 vinv = _mm512_set1_ps(inv), vq = _mm512_set1_ps(qmax), vnq = _mm512_set1_ps(-qmax);
  const __m512i vseed = _mm512_set1_epi64(static_cast<long long>(seed));
  const __m512i lanes = _mm512_mullo_epi64(_mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7),
                                           _mm512_set1_epi64(static_cast<long long>(GOLDEN)));
  const __m512i eight = _mm512_set1_epi64(static_cast<long long>(8 * GOLDEN));
  const __m512i step  = _mm512_set1_epi64(static_cast<long long>(16 * GOLDEN));
  __m512i ig0         = _mm512_add_epi64(_mm512_set1_epi64(static_cast<long long>(first * GOLDEN)), lanes);
  __m512i ig1         = _mm512_add_epi64(ig0, eight);
  std::size_t i       = 0;
  if constexpr (BITS == 4) {
    // 32 codes per step, packed together: two permutes put the even-indexed codes in one register and the odd ones in
    // another (element order), then one bit select takes bits 4..7 from (even << 4) and bits 0..3 from the odd code,
    // and the down-convert keeps each dword's low byte: byte k = (c_2k << 4) | (c_2k+1 & 0xF), as below.
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odd  = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    for (; i + 32 <= m; i += 32) {
      const __m512i q0 = codes16<STOCHASTIC>(x + i, vinv, vq, vnq, vseed, ig0, ig1);
      if constexpr (STOCHASTIC) {
        ig0 = _mm512_add_epi64(ig0, step);
        ig1 = _mm512_add_epi64(ig1, step);
      }
      const __m512i q1 = codes16<STOCHASTIC>(x + i + 16, vinv, vq, vnq, vseed, ig0, ig1);
      if constexpr (STOCHASTIC) {
        ig0 = _mm512_add_epi64(ig0, step);
        ig1 = _mm512_add_epi64(ig1, step);
      }
      // 0xE4: the first operand's bits where the third is set, the second's elsewhere (a bit select).
      const __m512i byte = _mm512_ternarylogic_epi32(_mm512_slli_epi32(_mm512_permutex2var_epi32(q0, even, q1), 4),
                                                     _mm512_permutex2var_epi32(q0, odd, q1),
                                                     _mm512_set1_epi32(0xF0), 0xE4);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(codes + i / 2), _mm512_cvtepi32_epi8(byte));
    }
  }
  for (; i + 16 <= m; i += 16) {
    const __m512i q = codes16<STOCHASTIC>(x + i, vinv, vq, vnq, vseed, ig0, ig1);
    if constexpr (BITS == 8) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(codes + i), _mm512_cvtepi32_epi8(q));
    } else {
      // Qword k holds codes 2k (low dword) and 2k+1: byte = (c_2k << 4) | (c_2k+1 & 0xF), then one byte per qword.
      const __m512i nib  = _mm512_and_si512(q, _mm512_set1_epi32(0xF));
      const __m512i byte = _mm512_or_si512(_mm512_slli_epi64(nib, 4), _mm512_srli_epi64(nib, 32));
      _mm_storel_epi64(reinterpret_cast<__m128i*>(codes + i / 2), _mm512_cvtepi64_epi8(byte));
    }
    if constexpr (STOCHASTIC) {
      ig0 = _mm512_add_epi64(ig0, step);
      ig1 = _mm512_add_epi64(ig1, step);
    }
  }
  encode_range_scalar(x + i, m - i, BITS, STOCHASTIC ? Rounding::STOCHASTIC : Rounding::NEAREST, inv, qmax, seed,
                      first + i, codes + i * BITS / 8);
}

} // namespace

const GroupKernels AVX512_GROUP_KERNELS = {absmax,
                                        {{encode_group<false, 4>, encode_group<true, 4>},
                                         {encode_group<false, 8>, encode_group<true, 8>}}};
#endif

} // namespace ccsim::numerics::detail
