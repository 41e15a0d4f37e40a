#pragma once
// One rank's parameters as the matrices and vectors a per-tensor compressor sees (PowerSGD's factors, DeMo's DCT
// chunks): the tensors of one transformer layer, repeated over the rank's layers, and the rest of its parameters
// (embeddings, output head, final norm). With an architecture: Megatron's matrices per layer (fused QKV, the output
// projection, fc1 or fused gate+up, fc2; one pair per expert on this rank; the router), norms and biases as vectors.
// Without one: GPT layers of the workload's hidden size h (fused QKV 3h x h, h x h, 4h x h, h x 4h; 13h of biases
// and norms). tp splits the matrices as Megatron does.

#include "sim/model/CommPlan.hpp"

#include <vector>

namespace ccsim::algorithms {

/// `count` tensors of rows x cols each (a vector: cols = 0, rows = its length).
struct TensorGroup {
  double rows, cols, count;
  bool vector() const { return cols <= 0; }
};

struct RankMatrices {
  std::vector<TensorGroup> layer; // one layer's tensors, in Megatron's order
  double layers = 0;              // layers on this rank (layers / pp)
  double hidden = 0;              // columns of the rest: the model's hidden size
  /// No shape at all (neither an architecture nor a hidden size and layers): the parameters are `tensors` square
  /// matrices and `layer` is empty.
  bool shapeless = false;
};

RankMatrices rank_matrices(const sim::StepShape& shape);

} // namespace ccsim::algorithms
