#pragma once
// The algorithm names ccsim knows. Each algorithm unit has a simulation half (its communication plan,
// registered in PlanRegistry.cpp) and a numeric half (its update for convergence runs, registered in
// UpdateRegistry.cpp); `ccsim list algorithms` shows the union.

#include <string>
#include <vector>

namespace ccsim::algorithms {

struct AlgorithmInfo {
  std::string name;
  std::string description;
  bool simulates = false; // has a communication plan (ccsim simulate)
  bool trains = false;    // has a numeric update (ccsim train)
};

/// Algorithms with a communication plan. Defined in PlanRegistry.cpp.
std::vector<AlgorithmInfo> plan_algorithm_infos();
/// Algorithms with a numeric update. Defined in UpdateRegistry.cpp.
std::vector<AlgorithmInfo> update_algorithm_infos();
/// Both lists merged by name, sorted.
std::vector<AlgorithmInfo> list_algorithms();

} // namespace ccsim::algorithms
