#pragma once
// SLAMB and the naive top-k / random-k LAMB baselines (SparsePlan; numerics::Slamb, numerics::SparseLamb).

#include "algorithms/AlgorithmDescriptor.hpp"

namespace ccsim::algorithms {

AlgorithmDescriptor slamb();
AlgorithmDescriptor topk_lamb();
AlgorithmDescriptor randk_lamb();

} // namespace ccsim::algorithms
