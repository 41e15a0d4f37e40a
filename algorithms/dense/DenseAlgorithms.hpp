#pragma once
// The uncompressed data-parallel algorithms: the baselines adam and lamb (DensePlan) and sgd, which only trains.

#include "algorithms/AlgorithmDescriptor.hpp"

namespace ccsim::algorithms {

AlgorithmDescriptor sgd();
AlgorithmDescriptor adam();
AlgorithmDescriptor lamb();

} // namespace ccsim::algorithms
