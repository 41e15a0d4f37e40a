#pragma once
// Softmax cross-entropy over the columns of a logits matrix: the loss every proxy language/classification head ends
// in (the pipelined MLP and transformer, and the transformer's whole-sequence loss).

#include <Eigen/Core>

#include <vector>

namespace ccsim::workloads {

/// Softmax cross-entropy per column of `logits` [classes x columns] against `labels` (one per column), averaged
/// over the columns; d_logits (if given) receives its gradient.
double column_cross_entropy(const Eigen::MatrixXf& logits, const std::vector<int>& labels, Eigen::MatrixXf* d_logits);

} // namespace ccsim::workloads
