// Fixed-order reductions and products (numerics/FixedOrder.hpp). Plain loops the compiler vectorises across
// independent partial sums (the 16 lanes of a reduction, the columns of a product tile), never across the terms of
// one sum, so the build's vector width changes the speed and not the bits.
#include "numerics/FixedOrder.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace ccsim::numerics {

namespace {
/// Lane j += lane j + w for w = 8, 4, 2, 1: the fixed combination of the 16 partial sums.
template <class T>
T combine_lanes(T* lane)
{
  for (std::size_t w = kLanes / 2; w >= 1; w /= 2)
    for (std::size_t j = 0; j < w; ++j)
      lane[j] += lane[j + w];
  return lane[0];
}
} // namespace

float fixed_sum(const float* x, std::size_t n)
{
  float lane[kLanes] = {};
  std::size_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (std::size_t j = 0; j < kLanes; ++j)
      lane[j] += x[i + j];
  for (std::size_t j = 0; i + j < n; ++j)
    lane[j] += x[i + j];
  return combine_lanes(lane);
}

float fixed_dot(const float* a, const float* b, std::size_t n)
{
  float lane[kLanes] = {};
  std::size_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (std::size_t j = 0; j < kLanes; ++j)
      lane[j] += a[i + j] * b[i + j];
  for (std::size_t j = 0; i + j < n; ++j)
    lane[j] += a[i + j] * b[i + j];
  return combine_lanes(lane);
}

double fixed_sum_squares(const float* x, std::size_t n)
{
  double lane[kLanes] = {};
  std::size_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (std::size_t j = 0; j < kLanes; ++j)
      lane[j] += static_cast<double>(x[i + j]) * x[i + j];
  for (std::size_t j = 0; i + j < n; ++j)
    lane[j] += static_cast<double>(x[i + j]) * x[i + j];
  return combine_lanes(lane);
}

float fixed_max(const float* x, std::size_t n)
{
  float m = x[0];
  for (std::size_t i = 1; i < n; ++i)
    if (std::isnan(x[i]) || x[i] > m)
      m = std::isnan(m) ? m : x[i]; // the first NaN stays
  return m;
}

namespace {
// The product's register tile: kTileRows rows of kTileVectors vectors of the build's widest width (GCC vector
// extensions: 4 floats on the x86-64 baseline, 8 with AVX, 16 with AVX-512). Each lane of a vector is one element
// C(i, j) adding its own products in the order of p; the width only decides how many such elements run together.
// The scalar test build (CCSIM_SCALAR_BUILD) takes one float per "vector".
#if defined(CCSIM_SCALAR_BUILD)
constexpr long kWidth = 1;
using Floats          = float;
#else
#if defined(__AVX512F__)
constexpr long kWidth = 16;
#elif defined(__AVX__)
constexpr long kWidth = 8;
#else
constexpr long kWidth = 4;
#endif
using Floats = float __attribute__((vector_size(kWidth * sizeof(float))));
#endif
constexpr long kTileRows = 4, kTileVectors = 3;

inline Floats load(const float* p)
{
  Floats v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
inline void store(float* p, Floats v) { __builtin_memcpy(p, &v, sizeof v); }

/// C(i0.., j0..) for kTileRows rows and V vectors of columns: b has contiguous rows (stride ldb), so does c (ldc).
template <long V>
void vector_tile(ConstMatrixView a, const float* b, long ldb, float* c, long ldc, long i0, long j0, long k,
                 bool accumulate)
{
  Floats acc[kTileRows][V] = {};
  for (long p = 0; p < k; ++p) {
    const float* bp = b + p * ldb + j0;
    Floats bv[V];
    for (long v = 0; v < V; ++v)
      bv[v] = load(bp + v * kWidth);
    for (long r = 0; r < kTileRows; ++r) {
      const Floats ar = Floats{} + a(i0 + r, p); // broadcast
      for (long v = 0; v < V; ++v)
        acc[r][v] += ar * bv[v];
    }
  }
  for (long r = 0; r < kTileRows; ++r)
    for (long v = 0; v < V; ++v) {
      float* cr = c + (i0 + r) * ldc + j0 + v * kWidth;
      store(cr, accumulate ? load(cr) + acc[r][v] : acc[r][v]);
    }
}

/// The same one element at a time, for the rows and columns a vector tile does not cover.
void scalar_block(ConstMatrixView a, const float* b, long ldb, float* c, long ldc, long i0, long i1, long j0, long j1,
                  long k, bool accumulate)
{
  for (long i = i0; i < i1; ++i)
    for (long j = j0; j < j1; ++j) {
      float acc = 0;
      for (long p = 0; p < k; ++p)
        acc += a(i, p) * b[p * ldb + j];
      float& out = c[i * ldc + j];
      out        = accumulate ? out + acc : acc;
    }
}

/// C (contiguous rows, stride ldc) = A·B with B's rows contiguous (stride ldb).
void gemm_rows(ConstMatrixView a, const float* b, long ldb, float* c, long ldc, long n, bool accumulate)
{
  const long m = a.rows, k = a.cols;
  const long full_rows = m / kTileRows * kTileRows;
  const long wide_cols = n / (kTileVectors * kWidth) * (kTileVectors * kWidth), vector_cols = n / kWidth * kWidth;
  for (long i0 = 0; i0 < full_rows; i0 += kTileRows) {
    long j0 = 0;
    for (; j0 < wide_cols; j0 += kTileVectors * kWidth)
      vector_tile<kTileVectors>(a, b, ldb, c, ldc, i0, j0, k, accumulate);
    for (; j0 < vector_cols; j0 += kWidth)
      vector_tile<1>(a, b, ldb, c, ldc, i0, j0, k, accumulate);
    scalar_block(a, b, ldb, c, ldc, i0, i0 + kTileRows, vector_cols, n, k, accumulate);
  }
  scalar_block(a, b, ldb, c, ldc, full_rows, m, 0, n, k, accumulate);
}

/// A contiguous row-major copy of v in a per-thread buffer (reused from call to call).
const float* packed_rows(ConstMatrixView v, std::vector<float>& buffer)
{
  buffer.resize(static_cast<std::size_t>(v.rows * v.cols));
  for (long r = 0; r < v.rows; ++r)
    for (long q = 0; q < v.cols; ++q)
      buffer[static_cast<std::size_t>(r * v.cols + q)] = v(r, q);
  return buffer.data();
}
} // namespace

void fixed_gemm(ConstMatrixView a, ConstMatrixView b, MatrixView c, bool accumulate)
{
  if (c.rows == 0 || c.cols == 0)
    return;
  // A column-major C is the row-major C^T = B^T·A^T: the same products in the same order of p.
  if (c.col_stride != 1 && c.row_stride == 1) {
    fixed_gemm(b.transposed(), a.transposed(), c.transposed(), accumulate);
    return;
  }
  thread_local std::vector<float> b_buffer, c_buffer;
  const bool b_rows = b.col_stride == 1;
  const float* bp   = b_rows ? b.data : packed_rows(b, b_buffer);
  const long ldb    = b_rows ? b.row_stride : b.cols;
  if (c.col_stride == 1) {
    gemm_rows(a, bp, ldb, c.data, c.row_stride, c.cols, accumulate);
    return;
  }
  // Neither rows nor columns contiguous: through a row-major buffer.
  c_buffer.resize(static_cast<std::size_t>(c.rows * c.cols));
  gemm_rows(a, bp, ldb, c_buffer.data(), c.cols, c.cols, /*accumulate=*/false);
  for (long r = 0; r < c.rows; ++r)
    for (long q = 0; q < c.cols; ++q) {
      float& out        = c.data[r * c.row_stride + q * c.col_stride];
      const float value = c_buffer[static_cast<std::size_t>(r * c.cols + q)];
      out               = accumulate ? out + value : value;
    }
}

} // namespace ccsim::numerics
