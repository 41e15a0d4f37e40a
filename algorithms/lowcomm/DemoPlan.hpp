#pragma once
// DeMo's communication (Peng et al. 2024, Algorithm 1; bloc97/DeMo demo.py): per step, every worker all-gathers its
// top-k DCT coefficients of every chunk, each as an fp32 value and an int64 index (demo.py gathers sparse_val in the
// parameters' dtype, fp32 master weights under amp, and torch.topk's int64 indices), around its momentum, DCT and
// signSGD kernels. No gradient all-reduce at all. The chunks come from the model's matrices (rank_matrices).

#include "algorithms/PlanAlgorithm.hpp"

namespace ccsim::algorithms {

/// topk: coefficients sent per chunk (demo.py's compression_topk, 32); chunk: the DCT's target size per dimension
/// (compression_chunk, 64). `ccsim simulate` and `ccsim train` alike.
ParamSpec demo_topk_param();
ParamSpec demo_chunk_param();

/// Coefficients one rank sends per step: every matrix cut into chunks of its dimensions' largest divisors <= chunk,
/// every vector into pieces, top-k of each (k capped at the chunk's size). The rest of the rank's parameters
/// (embeddings, output head) count as matrices of `hidden` columns and rows in whole chunks.
double demo_sent_per_rank(const sim::StepShape& shape, double topk, double chunk);

class DemoPlan : public NamedPlan {
public:
  using NamedPlan::NamedPlan;
  std::vector<ParamSpec> param_specs() const override;
  sim::StepPlan plan(const sim::StepShape& shape, const ParamValues& params) const override;
};

} // namespace ccsim::algorithms
