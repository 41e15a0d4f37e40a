// Random-k with a shared seed (Floyd's sampling into a bitmap) and exact top-k by radix selection on |x|'s bits.
#include "numerics/Sparsifiers.hpp"

#include "numerics/ParallelFor.hpp"
#include "numerics/SimdLevel.hpp"
#include "numerics/SimdTarget.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>

namespace ccsim::numerics {

namespace {
/// |x| as an unsigned key: clearing the sign bit of an IEEE float gives a key whose unsigned order is the order of
/// the magnitudes (NaNs excepted), so selection can work on integers.
inline std::uint32_t magnitude_key(float v)
{
  std::uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b & 0x7FFFFFFFu;
}

/// Finds in a 65536-bin histogram the bin that holds the `rank`-th largest key (rank counted from 1) and how many
/// keys lie in strictly higher bins.
void locate(const std::vector<std::uint64_t>& hist, std::uint64_t rank, std::uint32_t& bin, std::uint64_t& above)
{
  above = 0;
  for (std::size_t b = hist.size(); b-- > 0;) {
    if (above + hist[b] >= rank) {
      bin = static_cast<std::uint32_t>(b);
      return;
    }
    above += hist[b];
  }
  bin = 0;
}
} // namespace

std::size_t k_count(std::size_t n, double k)
{
  return std::min(n, static_cast<std::size_t>(std::ceil(k * static_cast<double>(n))));
}

std::vector<std::uint32_t> random_k_indices(std::size_t n, double k, std::uint64_t seed, std::uint64_t step)
{
  const std::size_t count = k_count(n, k);
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + step);
  // Floyd's algorithm: for j = n-count .. n-1 pick t in [0, j]; take t, or j if t is taken. Exactly `count`
  // distinct indices, each subset equally likely, O(count) draws and n bits of memory.
  std::vector<bool> chosen(n, false);
  for (std::size_t j = n - count; j < n; ++j) {
    const std::size_t t = static_cast<std::size_t>(rng() % (j + 1));
    if (chosen[t])
      chosen[j] = true;
    else
      chosen[t] = true;
  }
  std::vector<std::uint32_t> out;
  out.reserve(count);
  for (std::size_t i = 0; i < n; ++i)
    if (chosen[i])
      out.push_back(static_cast<std::uint32_t>(i));
  return out;
}

namespace {
/// Exact top-k of the keyed candidates (increasing indices): the count-th largest key by nth_element on a copy,
/// then one scan keeps every larger key and the first ties, which preserves increasing index order.
std::vector<std::uint32_t> select_from(const std::vector<std::uint32_t>& cand, const std::vector<std::uint32_t>& keys,
                                       std::size_t count)
{
  std::vector<std::uint32_t> sorted = keys;
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<long>(count - 1), sorted.end(), std::greater<>());
  const std::uint32_t kth = sorted[count - 1];
  std::size_t above = 0;
  for (std::uint32_t k : keys)
    above += k > kth;
  std::size_t ties = count - above;
  std::vector<std::uint32_t> out;
  out.reserve(count);
  for (std::size_t c = 0; c < cand.size(); ++c)
    if (keys[c] > kth || (keys[c] == kth && ties > 0 && ties--))
      out.push_back(cand[c]);
  return out;
}

/// Every index whose key is >= threshold, in increasing order, with its key (the one full pass over x).
/// `first` is the index of x[0] (the vector paths' tails).
void collect_candidates_scalar(const float* x, std::size_t n, std::uint32_t threshold, std::vector<std::uint32_t>& cand,
                               std::vector<std::uint32_t>& keys, std::size_t first = 0)
{
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t key = magnitude_key(x[i]);
    if (key >= threshold) {
      cand.push_back(static_cast<std::uint32_t>(first + i));
      keys.push_back(key);
    }
  }
}

#if CCSIM_HAVE_X86_SIMD
/// The same, 16 keys per compare; the rare hits are compressed in a register and stored whole (a compressing store
/// straight to memory is slow on AMD Zen 4), so the outputs keep 16 slots of slack until the final resize.
CCSIM_TARGET_AVX512 void collect_candidates_avx512(const float* x, std::size_t n, std::uint32_t threshold,
                                                   std::vector<std::uint32_t>& cand, std::vector<std::uint32_t>& keys)
{
  std::size_t used   = 0; // cand and keys come sized with slack; their final size is set below
  const __m512i thr  = _mm512_set1_epi32(static_cast<int>(threshold));
  const __m512i mag  = _mm512_set1_epi32(0x7FFFFFFF);
  const __m512i step = _mm512_set1_epi32(16);
  __m512i index      = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  std::size_t i      = 0;
  for (; i + 16 <= n; i += 16, index = _mm512_add_epi32(index, step)) {
    const __m512i key   = _mm512_and_si512(_mm512_loadu_si512(x + i), mag);
    const __mmask16 hit = _mm512_cmpge_epu32_mask(key, thr);
    if (hit == 0)
      continue;
    if (used + 16 > cand.size()) {
      cand.resize(2 * cand.size() + 64);
      keys.resize(cand.size());
    }
    _mm512_storeu_si512(cand.data() + used, _mm512_maskz_compress_epi32(hit, index));
    _mm512_storeu_si512(keys.data() + used, _mm512_maskz_compress_epi32(hit, key));
    used += static_cast<std::size_t>(__builtin_popcount(hit));
  }
  cand.resize(used);
  keys.resize(used);
  for (; i < n; ++i) {
    const std::uint32_t key = magnitude_key(x[i]);
    if (key >= threshold) {
      cand.push_back(static_cast<std::uint32_t>(i));
      keys.push_back(key);
    }
  }
}

/// The same, 8 keys per compare: a block with no hit (most of them: the sampled threshold passes little more than the
/// k keys wanted) costs one compare, and a hit's lanes are walked in index order. Keys are below 2^31, so a signed
/// compare with threshold - 1 (-1 for a threshold of 0: every key) orders them as unsigned.
CCSIM_TARGET_AVX2 void collect_candidates_avx2(const float* x, std::size_t n, std::uint32_t threshold,
                                               std::vector<std::uint32_t>& cand, std::vector<std::uint32_t>& keys)
{
  const __m256i below = _mm256_set1_epi32(static_cast<int>(threshold) - 1); // key >= threshold <=> key > threshold - 1
  const __m256i mag   = _mm256_set1_epi32(0x7FFFFFFF);
  std::size_t i       = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i key = _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i)), mag);
    auto hit = static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(key, below))));
    for (; hit != 0; hit &= hit - 1) {
      const std::size_t j = i + static_cast<std::size_t>(__builtin_ctz(hit));
      cand.push_back(static_cast<std::uint32_t>(j));
      keys.push_back(magnitude_key(x[j]));
    }
  }
  collect_candidates_scalar(x + i, n - i, threshold, cand, keys, i);
}
#endif

void collect_candidates(const float* x, std::size_t n, std::uint32_t threshold, std::size_t expected,
                        std::vector<std::uint32_t>& cand, std::vector<std::uint32_t>& keys)
{
#if CCSIM_HAVE_X86_SIMD
  if (simd_level() == SimdLevel::AVX512) {
    cand.resize(expected + 16);
    keys.resize(expected + 16);
    return collect_candidates_avx512(x, n, threshold, cand, keys);
  }
#endif
  cand.reserve(expected);
  keys.reserve(expected);
#if CCSIM_HAVE_X86_SIMD
  if (simd_level() == SimdLevel::AVX2)
    return collect_candidates_avx2(x, n, threshold, cand, keys);
#endif
  collect_candidates_scalar(x, n, threshold, cand, keys);
}

/// Fast path: a threshold from a 1/256 sample (1/64 cost a DRAM miss per 256 bytes for little gain in precision), set low enough to over-collect, then one pass gathers every
/// candidate at or above it. Exact whenever at least `count` candidates come back (the count-th largest key is
/// then >= the threshold, so every member of the answer is a candidate); returns false otherwise.
bool top_k_sampled(const float* x, std::size_t n, std::size_t count, std::vector<std::uint32_t>& out)
{
  constexpr std::size_t STRIDE = 256;
  std::vector<std::uint32_t> sample;
  sample.reserve(n / STRIDE + 1);
  for (std::size_t i = 0; i < n; i += STRIDE)
    sample.push_back(magnitude_key(x[i]));
  const double expected = static_cast<double>(count) * static_cast<double>(sample.size()) / static_cast<double>(n);
  const auto rank = std::min<std::size_t>(sample.size() - 1, static_cast<std::size_t>(1.3 * expected + 4 * std::sqrt(expected) + 16));
  std::nth_element(sample.begin(), sample.begin() + static_cast<long>(rank), sample.end(), std::greater<>());
  const std::uint32_t threshold = sample[rank];
  std::vector<std::uint32_t> cand, keys;
  collect_candidates(x, n, threshold, 2 * count + 64, cand, keys);
  if (cand.size() < count)
    return false;
  out = select_from(cand, keys, count);
  return true;
}
} // namespace

std::vector<std::uint32_t> top_k_indices(const float* x, std::size_t n, std::size_t count)
{
  count = std::min(count, n);
  std::vector<std::uint32_t> out;
  if (count == 0)
    return out;
  if (n >= (std::size_t{1} << 16) && count <= n / 8 && top_k_sampled(x, n, count, out))
    return out;
  out.reserve(count);
  // Pass 1: histogram of the high 16 bits of the key; the bin of the count-th largest key. Four interleaved
  // 32-bit sub-histograms: typical data piles into few bins, and one histogram would serialise on them.
  std::vector<std::uint32_t> sub(4 * 65536, 0);
  std::size_t i4 = 0;
  for (; i4 + 4 <= n; i4 += 4)
    for (std::size_t j = 0; j < 4; ++j)
      ++sub[j * 65536 + (magnitude_key(x[i4 + j]) >> 16)];
  for (; i4 < n; ++i4)
    ++sub[magnitude_key(x[i4]) >> 16];
  std::vector<std::uint64_t> hist(65536, 0);
  for (std::size_t b = 0; b < 65536; ++b)
    hist[b] = std::uint64_t{sub[b]} + sub[65536 + b] + sub[2 * 65536 + b] + sub[3 * 65536 + b];
  std::uint32_t high = 0;
  std::uint64_t above_high = 0;
  locate(hist, count, high, above_high);
  // Pass 2: among keys in that bin, histogram of the low 16 bits: the exact threshold key.
  std::fill(hist.begin(), hist.end(), 0);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t key = magnitude_key(x[i]);
    if ((key >> 16) == high)
      ++hist[key & 0xFFFFu];
  }
  std::uint32_t low = 0;
  std::uint64_t above_low = 0;
  locate(hist, count - above_high, low, above_low);
  const std::uint32_t threshold = (high << 16) | low;
  // Pass 3: every key above the threshold, then ties at the threshold in index order until `count`.
  std::uint64_t ties = count - above_high - above_low;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t key = magnitude_key(x[i]);
    if (key > threshold || (key == threshold && ties > 0 && ties--))
      out.push_back(static_cast<std::uint32_t>(i));
  }
  assert(out.size() == count);
  return out;
}

void gather(const float* x, const std::uint32_t* idx, std::size_t k, float* values)
{
  for (std::size_t i = 0; i < k; ++i)
    values[i] = x[idx[i]];
}

void gather(const float* x, const std::uint32_t* idx, std::size_t k, float* values, std::size_t threads)
{
  parallel_ranges(threads, k, 16, [&](std::size_t b, std::size_t e) { gather(x, idx + b, e - b, values + b); });
}

void scatter(const float* values, const std::uint32_t* idx, std::size_t k, float* x)
{
  for (std::size_t i = 0; i < k; ++i)
    x[idx[i]] = values[i];
}

void gather(const float* x, const std::vector<std::uint32_t>& idx, float* values)
{
  gather(x, idx.data(), idx.size(), values);
}

void scatter(const float* values, const std::vector<std::uint32_t>& idx, float* x)
{
  scatter(values, idx.data(), idx.size(), x);
}

SparseVector top_k(const float* x, std::size_t n, std::size_t count)
{
  SparseVector s;
  s.indices = top_k_indices(x, n, count);
  s.values.resize(s.indices.size());
  gather(x, s.indices, s.values.data());
  return s;
}

} // namespace ccsim::numerics
