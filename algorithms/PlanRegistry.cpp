// PLACEHOLDER until the presets engineer registers the communication plans (issue 5).
#include "algorithms/Registry.hpp"

namespace ccsim::algorithms {
std::vector<AlgorithmInfo> plan_algorithm_infos() { return {}; }
} // namespace ccsim::algorithms
