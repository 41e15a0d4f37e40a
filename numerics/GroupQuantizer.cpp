// Group quantizer with nearest and reproducible stochastic rounding. The packed kernel works one group at a time on
// raw pointers: a max|x| pass, then a code pass that writes packed bytes, each from the path simd_level() picks
// (scalar here, AVX2 / AVX-512 in numerics/GroupQuantizerAvx2.cpp / GroupQuantizerAvx512.cpp; all bit-identical).
// quantize_groups (unpacked, any width) is the scalar reference the tests compare against.
#include "numerics/GroupQuantizer.hpp"

#include "numerics/GroupQuantizerPaths.hpp"
#include "numerics/ParallelFor.hpp"
#include "numerics/QuantizedSizes.hpp"
#include "numerics/Rounding.hpp"
#include "numerics/SimdLevel.hpp"
#include "numerics/SimdTarget.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace ccsim::numerics {

namespace {
using detail::draw;

/// Codes (as floats in [-qmax, qmax]) of m values scaled by inv; the draw index of x[i] is first + i.
void code_slice(const float* x, std::size_t m, float inv, float qmax, Rounding rounding, std::uint64_t seed,
                std::uint64_t first, float* code)
{
  for (std::size_t i = 0; i < m; ++i)
    code[i] = rounding == Rounding::NEAREST ? detail::nearest_code(x[i], inv, qmax)
                                            : detail::stochastic_code(x[i], inv, qmax, draw(seed, first + i));
}

/// max|x| with 8 independent lanes: a single running max is a serial dependency chain the compiler will not
/// reorder; max is exact, so any order gives the same result (a NaN never wins a comparison, so it is skipped).
CCSIM_VECTOR_CLONES
float group_absmax(const float* x, std::size_t n)
{
  float lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; ++j) {
      const float a = std::fabs(x[i + j]);
      lane[j]       = lane[j] < a ? a : lane[j];
    }
  float m = 0.0f;
  for (float l : lane)
    m = std::max(m, l);
  for (; i < n; ++i)
    m = std::max(m, std::fabs(x[i]));
  return m;
}

/// Quantizes one group [g0, g1) into float codes (scratch) and returns its stored scale.
float quantize_group(const float* x, std::size_t g0, std::size_t g1, int bits, Rounding rounding, std::uint64_t seed,
                     float* code_out)
{
  const float qmax   = static_cast<float>(max_code(bits));
  const float absmax = group_absmax(x + g0, g1 - g0);
  code_slice(x + g0, g1 - g0, detail::group_inverse(absmax, qmax), qmax, rounding, seed, g0, code_out);
  return absmax / qmax;
}

inline float nibble_value(unsigned nibble)
{
  return static_cast<float>(static_cast<int>(nibble ^ 8u) - 8); // sign-extend a two's-complement nibble
}

template <bool ACCUMULATE>
CCSIM_VECTOR_CLONES void dequantize_packed(const std::uint8_t* codes, const float* scales, std::size_t n, int bits, std::size_t group,
                       float* out)
{
  assert(bits == 4 || bits == 8);
  for (std::size_t g0 = 0, g = 0; g0 < n; g0 += group, ++g) {
    const std::size_t g1 = std::min(n, g0 + group);
    const float s        = scales[g];
    if (bits == 8) {
      const auto* c = reinterpret_cast<const std::int8_t*>(codes);
      for (std::size_t i = g0; i < g1; ++i) {
        const float v = static_cast<float>(c[i]) * s;
        out[i]        = ACCUMULATE ? out[i] + v : v;
      }
    } else {
      // g0 is even (group is even at 4 bits): walk whole bytes, high nibble first.
      std::size_t i = g0;
      for (; i + 1 < g1; i += 2) {
        const unsigned byte = codes[i / 2];
        const float hi      = nibble_value(byte >> 4) * s;
        const float lo      = nibble_value(byte & 0xFu) * s;
        out[i]              = ACCUMULATE ? out[i] + hi : hi;
        out[i + 1]          = ACCUMULATE ? out[i + 1] + lo : lo;
      }
      if (i < g1) {
        const float hi = nibble_value(static_cast<unsigned>(codes[i / 2]) >> 4) * s;
        out[i]         = ACCUMULATE ? out[i] + hi : hi;
      }
    }
  }
}
} // namespace

std::uint64_t QuantizedGroups::wire_bytes() const
{
  return group_quantized_bytes(numel, bits, group);
}

float uniform_draw(std::uint64_t seed, std::uint64_t index)
{
  return draw(seed, index);
}

std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t a, std::uint64_t b)
{
  return detail::splitmix64_finalise(seed ^ (a * 0xD1B54A32D192ED03ull) ^ (b * 0x8CB92BA72F3D8DD7ull));
}

QuantizedGroups quantize_groups(const float* x, std::size_t n, int bits, std::size_t group, Rounding rounding,
                                std::uint64_t seed)
{
  assert(bits >= 2 && bits <= 8 && group > 0);
  QuantizedGroups q;
  q.bits  = bits;
  q.group = group;
  q.numel = n;
  q.codes.resize(n);
  q.scales.resize((n + group - 1) / group);
  std::vector<float> code(std::min(n, group));
  for (std::size_t g0 = 0, g = 0; g0 < n; g0 += group, ++g) {
    const std::size_t g1 = std::min(n, g0 + group);
    q.scales[g]          = quantize_group(x, g0, g1, bits, rounding, seed, code.data());
    for (std::size_t i = g0; i < g1; ++i)
      q.codes[i] = static_cast<std::int8_t>(code[i - g0]);
  }
  return q;
}

void dequantize_groups(const QuantizedGroups& q, float* out)
{
  for (std::size_t i = 0; i < q.numel; ++i)
    out[i] = static_cast<float>(q.codes[i]) * q.scales[i / q.group];
}

std::vector<std::uint8_t> pack_int4(const std::vector<std::int8_t>& codes)
{
  std::vector<std::uint8_t> out((codes.size() + 1) / 2, 0);
  for (std::size_t i = 0; i < codes.size(); ++i) {
    const auto nibble = static_cast<std::uint8_t>(codes[i] & 0xF);
    out[i / 2] |= (i % 2 == 0) ? static_cast<std::uint8_t>(nibble << 4) : nibble;
  }
  return out;
}

std::vector<std::int8_t> unpack_int4(const std::vector<std::uint8_t>& packed, std::size_t n)
{
  std::vector<std::int8_t> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned nibble = (i % 2 == 0) ? packed[i / 2] >> 4 : packed[i / 2] & 0xFu;
    out[i]                = static_cast<std::int8_t>(nibble_value(nibble));
  }
  return out;
}

std::size_t packed_code_bytes(std::size_t n, int bits)
{
  assert(bits == 4 || bits == 8);
  return bits == 8 ? n : (n + 1) / 2;
}

std::uint64_t packed_bytes(std::size_t n, int bits, std::size_t group)
{
  return group_quantized_bytes(n, bits, group);
}

namespace detail {
void encode_range_scalar(const float* x, std::size_t m, int bits, Rounding rounding, float inv, float qmax,
                         std::uint64_t seed, std::uint64_t first, std::uint8_t* codes)
{
  auto code = [&](std::size_t i) {
    const float c = rounding == Rounding::NEAREST ? nearest_code(x[i], inv, qmax)
                                                  : stochastic_code(x[i], inv, qmax, draw(seed, first + i));
    return static_cast<int>(c);
  };
  if (bits == 8) {
    for (std::size_t i = 0; i < m; ++i)
      codes[i] = static_cast<std::uint8_t>(static_cast<std::int8_t>(code(i)));
    return;
  }
  std::size_t i = 0;
  for (; i + 1 < m; i += 2)
    codes[i / 2] = static_cast<std::uint8_t>(((static_cast<unsigned>(code(i)) & 0xFu) << 4) |
                                             (static_cast<unsigned>(code(i + 1)) & 0xFu));
  if (i < m) // a final odd element: zero low nibble
    codes[i / 2] = static_cast<std::uint8_t>((static_cast<unsigned>(code(i)) & 0xFu) << 4);
}
} // namespace detail

namespace {
template <int BITS, Rounding ROUNDING>
void encode_scalar(const float* x, std::size_t m, float inv, float qmax, std::uint64_t seed, std::uint64_t first,
                   std::uint8_t* codes)
{
  detail::encode_range_scalar(x, m, BITS, ROUNDING, inv, qmax, seed, first, codes);
}

const detail::GroupKernels SCALAR_GROUP_KERNELS = {
    group_absmax,
    {{encode_scalar<4, Rounding::NEAREST>, encode_scalar<4, Rounding::STOCHASTIC>},
     {encode_scalar<8, Rounding::NEAREST>, encode_scalar<8, Rounding::STOCHASTIC>}}};

const detail::GroupKernels& group_kernels()
{
#if CCSIM_HAVE_X86_SIMD
  switch (simd_level()) {
  case SimdLevel::AVX512: return detail::AVX512_GROUP_KERNELS;
  case SimdLevel::AVX2: return detail::AVX2_GROUP_KERNELS;
  default: break;
  }
#endif
  return SCALAR_GROUP_KERNELS;
}
} // namespace

void quantize_groups_packed(const float* x, std::size_t n, int bits, std::size_t group, Rounding rounding,
                            std::uint64_t seed, std::uint8_t* codes, float* scales, std::uint64_t first_index,
                            std::size_t threads)
{
  assert((bits == 4 && group % 2 == 0) || bits == 8);
  if (threads > 1)
    return parallel_ranges(threads, n, group, [&](std::size_t b, std::size_t e) {
      quantize_groups_packed(x + b, e - b, bits, group, rounding, seed, codes + b * static_cast<std::size_t>(bits) / 8,
                             scales + b / group, first_index + b);
    });
  const detail::GroupKernels& k = group_kernels();
  for (std::size_t g0 = 0, g = 0; g0 < n; g0 += group, ++g) {
    const std::size_t m = std::min(n - g0, group);
    // g0 is even at 4 bits (group is even), so the group's codes start on a byte.
    detail::encode_group_known_max(x + g0, m, k.absmax(x + g0, m), bits, rounding, seed, first_index + g0,
                                   codes + g0 * static_cast<std::size_t>(bits) / 8, scales + g);
  }
}

namespace detail {
void encode_group_known_max(const float* x, std::size_t m, float absmax, int bits, Rounding rounding,
                            std::uint64_t seed, std::uint64_t first, std::uint8_t* codes, float* scale)
{
  const float qmax = static_cast<float>(max_code(bits));
  *scale           = absmax / qmax; // SDP4Bit §7.1: the stored scale is max|x| / qmax
  group_kernels().encode[bits == 8][rounding == Rounding::STOCHASTIC](x, m, group_inverse(absmax, qmax), qmax, seed,
                                                                      first, codes);
}
} // namespace detail

void dequantize_groups_packed(const std::uint8_t* codes, const float* scales, std::size_t n, int bits,
                              std::size_t group, float* out)
{
  dequantize_packed<false>(codes, scales, n, bits, group, out);
}

void dequantize_accumulate_packed(const std::uint8_t* codes, const float* scales, std::size_t n, int bits,
                                  std::size_t group, float* out)
{
  dequantize_packed<true>(codes, scales, n, bits, group, out);
}

} // namespace ccsim::numerics
