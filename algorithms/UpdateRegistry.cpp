// PLACEHOLDER until the convergence engineer registers the numeric updates (issue 6).
#include "algorithms/Registry.hpp"

namespace ccsim::algorithms {
std::vector<AlgorithmInfo> update_algorithm_infos() { return {}; }
} // namespace ccsim::algorithms
