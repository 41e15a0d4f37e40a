#pragma once
// `bench-compute`'s options: the table both front ends generate their arguments from, and the builder that reads what
// was given into the request (api/run/ComputeBench.hpp).

#include "api/options/OptionTable.hpp"

#include <string>

namespace ccsim::api {

struct BenchComputeCommand {
  std::string backend = "cuda";
  bool quick          = false; // a sample of the grid (a smoke run)
  int trials          = 0;     // timed trials per kernel (the median is reported)
  std::string compare;         // a measurement document to compare with the model instead of measuring
  std::string topology;        // with compare: the topology whose GPU the model prices on
  std::string topology_path;   // topology resolved (a preset name or a file)
  bool fit = false;            // with compare: refit the GPU's compute constants on the measurement
};

const OptionTable<BenchComputeCommand>& bench_compute_options();

BenchComputeCommand build_bench_compute(const GivenValues& given);

} // namespace ccsim::api
