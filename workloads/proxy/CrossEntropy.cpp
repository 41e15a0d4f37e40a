// Softmax cross-entropy over logits columns (workloads/proxy/CrossEntropy.hpp).
#include "workloads/proxy/CrossEntropy.hpp"

#include "numerics/FixedOrder.hpp"
#include "numerics/PortableMath.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ccsim::workloads {

double column_cross_entropy(const Eigen::MatrixXf& logits, const std::vector<int>& labels, Eigen::MatrixXf* d_logits)
{
  Eigen::MatrixXf z = logits;
  double total      = 0;
  for (long j = 0; j < z.cols(); ++j) {
    // Non-finite logits (parameters that overflowed) make the loss NaN: the 1e-12 floor below would otherwise turn
    // a NaN probability into a plausible-looking loss of 27.63 (std::max(1e-12f, NaN) is 1e-12f).
    float* col     = z.data() + j * z.rows();
    const auto V   = static_cast<std::size_t>(z.rows());
    const float mx = numerics::fixed_max(col, V);
    if (!std::isfinite(mx))
      total = std::numeric_limits<double>::quiet_NaN();
    for (std::size_t i = 0; i < V; ++i) // not Eigen's exp(): its vector and scalar paths round differently
      col[i] = numerics::portable_expf(col[i] - mx);
    z.col(j) /= numerics::fixed_sum(col, V);
    total -= std::log(std::max(1e-12f, z(labels[static_cast<std::size_t>(j)], j)));
  }
  if (d_logits != nullptr) {
    for (long j = 0; j < z.cols(); ++j)
      z(labels[static_cast<std::size_t>(j)], j) -= 1.0f;
    *d_logits = z / static_cast<float>(z.cols());
  }
  return total / static_cast<double>(z.cols());
}

} // namespace ccsim::workloads
