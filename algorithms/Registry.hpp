#pragma once
// The algorithms ccsim knows: one registry of descriptors (algorithms/AlgorithmDescriptor.hpp), filled with one line
// per algorithm (algorithms/BuiltinAlgorithms.cpp). `ccsim list`, simulate's plans, train's updates and parameters,
// the memory footprint, the papers' defaults, advise and the Python package all read it; a name it does not hold is
// an error everywhere.

#include "algorithms/AlgorithmDescriptor.hpp"

#include <string>
#include <vector>

namespace ccsim::algorithms {

/// Adds `descriptor` after the built-in algorithms (a test's toy algorithm; a tool's own). Register before use: the
/// registry is read without a lock. Checks it against the others and throws std::logic_error when its name is empty
/// or taken, its plan disagrees with it (name, parallelism), it has two updates, it declares a train key twice or
/// differently from another algorithm, its baseline is not registered (before it, or itself), or
/// a second algorithm of its parallelism claims to be advise's reference.
void register_algorithm(AlgorithmDescriptor descriptor);

/// Every registered algorithm in registry order: the built-in ones as algorithms/BuiltinAlgorithms.cpp lists them
/// (the data-parallel optimizers, then the sharded and the pipelined algorithms), then any registered later.
std::vector<const AlgorithmDescriptor*> registered_algorithms();

/// nullptr when no algorithm has that name.
const AlgorithmDescriptor* find_algorithm(const std::string& name);
/// The algorithm `name`; throws std::invalid_argument("unknown algorithm 'x' (known: ...)") when none has it.
const AlgorithmDescriptor& algorithm_named(const std::string& name);
/// The algorithm `name` when it trains; else throws std::invalid_argument("no numeric update for 'x' (trainable:
/// ...)"), the trainable ones in registry order.
const AlgorithmDescriptor& trainable_algorithm(const std::string& name);
/// advise's baseline for workloads trained with `parallelism` (AlgorithmDescriptor::reference_for_parallelism);
/// std::logic_error when none is registered.
const AlgorithmDescriptor& reference_algorithm(Parallelism parallelism);

struct AlgorithmInfo {
  std::string name;
  std::string description;
  bool simulates = false; // has a communication plan (ccsim simulate)
  bool trains = false;    // has a numeric update (ccsim train)
};

/// Algorithms with a numeric update, in registry order.
std::vector<AlgorithmInfo> update_algorithm_infos();
/// Every algorithm, sorted by name (what `ccsim list algorithms` and ccsim.algorithms() show).
std::vector<AlgorithmInfo> list_algorithms();

} // namespace ccsim::algorithms
