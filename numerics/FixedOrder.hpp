#pragma once
// Sums, dot products and matrix products whose order of floating-point operations is fixed by the sizes alone, so
// that no vector width (scalar, SSE2, AVX2, AVX-512), tiling or thread count changes a bit of the result (issue 42).
// Eigen's own reductions and products do not have that property: a reduction adds one partial sum per SIMD lane, so
// its order follows the packet size the build chose, and its GEMM kernels fuse multiply-adds where the build has
// FMA. The proxies and optimizers of `ccsim train` use these instead; tests/algorithms/TrainingBytes_test.cpp
// trains through builds of every width and compares the bytes of the losses.
//
// The orders, stated once:
//   sums and dots: element i goes to lane i % 16 (kLanes); each lane adds its elements in index order, starting
//                  from 0; the 16 lanes are then combined pairwise, lane j += lane j + w for w = 8, 4, 2, 1. Any
//                  vector of 4, 8 or 16 lanes computes exactly these 16 partial sums.
//   products:      C(i, j) = sum over p = 0, 1, ..., k-1 of A(i, p)·B(p, j), added in that order from 0; each product
//                  is rounded to fp32 before it is added (the numerics libraries build with -ffp-contract=off). The
//                  vector runs across j, never across p. With `accumulate`, the whole sum is then added to C once.

#include <cmath>
#include <cstddef>

namespace ccsim::numerics {

/// Partial sums of the fixed-order reductions.
inline constexpr std::size_t kLanes = 16;

/// sum of x[0..n) in the fixed order above.
float fixed_sum(const float* x, std::size_t n);
/// sum of a[i]·b[i] in the fixed order above (each product rounded to fp32).
float fixed_dot(const float* a, const float* b, std::size_t n);
/// sum of x[i]² accumulated in double, in the fixed order above: the Euclidean norm is its square root.
double fixed_sum_squares(const float* x, std::size_t n);
/// sqrt(fixed_sum_squares(x, n)): the Euclidean norm, in double.
inline double fixed_norm(const float* x, std::size_t n) { return std::sqrt(fixed_sum_squares(x, n)); }
/// The largest of x[0..n) (n >= 1), NaN if any element is NaN.
float fixed_max(const float* x, std::size_t n);

/// A read-only strided matrix: element (r, c) at data[r·row_stride + c·col_stride].
struct ConstMatrixView {
  const float* data;
  long rows, cols, row_stride, col_stride;
  float operator()(long r, long c) const { return data[r * row_stride + c * col_stride]; }
  ConstMatrixView transposed() const { return {data, cols, rows, col_stride, row_stride}; }
};
struct MatrixView {
  float* data;
  long rows, cols, row_stride, col_stride;
  MatrixView transposed() const { return {data, cols, rows, col_stride, row_stride}; }
  operator ConstMatrixView() const { return {data, rows, cols, row_stride, col_stride}; }
};

/// Views of contiguous row-major and column-major storage.
inline ConstMatrixView row_major(const float* p, long rows, long cols) { return {p, rows, cols, cols, 1}; }
inline ConstMatrixView col_major(const float* p, long rows, long cols) { return {p, rows, cols, 1, rows}; }
inline MatrixView row_major(float* p, long rows, long cols) { return {p, rows, cols, cols, 1}; }
inline MatrixView col_major(float* p, long rows, long cols) { return {p, rows, cols, 1, rows}; }

/// C = A·B, or C += A·B with `accumulate`, in the fixed order above. A is rows x k, B k x cols; C must not overlap
/// A or B. Any strides; the kernel copies B (or, for a column-major C, A) to a contiguous buffer when its rows are
/// not contiguous.
void fixed_gemm(ConstMatrixView a, ConstMatrixView b, MatrixView c, bool accumulate = false);

} // namespace ccsim::numerics
