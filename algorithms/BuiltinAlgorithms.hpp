#pragma once
// The algorithms ccsim ships, one registry line each (BuiltinAlgorithms.cpp); the registry (algorithms/Registry.hpp)
// takes them in at its first use.

#include "algorithms/AlgorithmDescriptor.hpp"

#include <vector>

namespace ccsim::algorithms {

std::vector<AlgorithmDescriptor> builtin_algorithms();

} // namespace ccsim::algorithms
