#pragma once
// The low-communication methods beyond the five papers (issue 47): PowerSGD's low-rank gradients (Vogels et al. 2019)
// DiLoCo's rare outer steps (Douillard et al. 2023), Streaming DiLoCo's fragments (Douillard et al. 2025) and DeMo's
// DCT top-k of a decoupled momentum (Peng et al. 2024).

#include "algorithms/AlgorithmDescriptor.hpp"

namespace ccsim::algorithms {

AlgorithmDescriptor powersgd();
AlgorithmDescriptor diloco();
AlgorithmDescriptor streaming_diloco();
AlgorithmDescriptor demo();

} // namespace ccsim::algorithms
