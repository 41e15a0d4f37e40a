// Prints tests/support/TrainingBytes.hpp's runs: compiled once per vector width with the training numerics built the
// same way (tests/CMakeLists.txt), and run by tests/algorithms/TrainingBytes_test.cpp.
#include "tests/support/TrainingBytes.hpp"

#include <exception>
#include <iostream>

int main()
{
  try {
    std::cout << ccsim::test::training_bytes();
  } catch (const std::exception& e) {
    std::cerr << "training_bytes: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
