#pragma once
// Products and row sums of the proxies' column-major matrices in the fixed order of numerics/FixedOrder.hpp, so a
// proxy's forward and backward give the same bits whatever the vector width (issue 42).

#include "numerics/FixedOrder.hpp"

#include <Eigen/Core>

namespace ccsim::workloads {

/// A view of a column-major matrix (an Eigen::MatrixXf or a Map of one).
template <class M>
numerics::ConstMatrixView cview(const M& m)
{
  return numerics::col_major(m.data(), m.rows(), m.cols());
}

/// a·b as a new column-major matrix.
inline Eigen::MatrixXf times(numerics::ConstMatrixView a, numerics::ConstMatrixView b)
{
  Eigen::MatrixXf c(a.rows, b.cols);
  numerics::fixed_gemm(a, b, numerics::col_major(c.data(), c.rows(), c.cols()));
  return c;
}

/// Each row's sum over the columns, added in column order (the per-example sum of a batch gradient).
inline Eigen::VectorXf row_sums(const Eigen::MatrixXf& m)
{
  Eigen::VectorXf s = m.col(0);
  for (long j = 1; j < m.cols(); ++j)
    s += m.col(j);
  return s;
}

} // namespace ccsim::workloads
