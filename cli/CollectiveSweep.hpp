#pragma once
// One collective over a list of sizes on a simulated cluster, in a forked child (SimGrid's Engine is one per
// process): what `ccsim collective` prints and what `ccsim calibrate` fits the topology's constants to.

#include "algorithms/CollectiveOps.hpp"
#include "cli/Simulation.hpp"
#include "sim/StepEngine.hpp"
#include "sim/Topology.hpp"

#include <cstdint>
#include <vector>

namespace ccsim::cli {

struct SweepTimes {
  std::vector<double> seconds; // one per size
  std::uint64_t events = 0;
  double wall_s        = 0;
};

SweepTimes simulate_sweep(const sim::Topology& topo, const algorithms::CollectiveBench& bench, int gpus,
                          const std::vector<std::uint64_t>& sizes, sim::Fidelity fidelity, bool with_kernels,
                          const ProgressFn& on_progress = {});

} // namespace ccsim::cli
