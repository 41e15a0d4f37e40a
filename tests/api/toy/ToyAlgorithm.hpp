#pragma once
// A toy algorithm added the way docs/contributing.md says a real one is: this file pair (its plan, its update, its
// parameter and its memory, in one descriptor) and one registry line (tests/api/ToyAlgorithm_test.cpp registers it).
//
// "toy-share": data parallelism that all-reduces a share `toy_share` of the fp16 gradients and steps with Adam
// (simulate), and trains by plain SGD on the averaged gradients, counting the share of a ring all-reduce it would
// send (train). At toy_share = 1 its plan is DensePlan's adam and its update is sgd without momentum, which is what
// the test holds it to.

#include "algorithms/AlgorithmDescriptor.hpp"

namespace ccsim::test {

inline constexpr const char* kToyName = "toy-share";

/// --param toy_share, for simulate and train alike (one declaration).
algorithms::ParamSpec toy_share_param();

algorithms::AlgorithmDescriptor toy_algorithm();

} // namespace ccsim::test
