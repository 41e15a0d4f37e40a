#pragma once
// 1-bit Adam, 1-bit LAMB and their naive baselines (OnebitPlan; numerics::OnebitAdam, NaiveOnebitAdam, OnebitLamb).

#include "algorithms/AlgorithmDescriptor.hpp"

namespace ccsim::algorithms {

AlgorithmDescriptor onebit_adam();
AlgorithmDescriptor naive_onebit_adam();
AlgorithmDescriptor onebit_lamb();
AlgorithmDescriptor lamb_basic_onebit();

} // namespace ccsim::algorithms
