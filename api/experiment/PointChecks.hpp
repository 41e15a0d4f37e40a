#pragma once
// An experiment checked whole before its first point runs: every point's request is resolved
// (api/run/ResolvedRun.hpp: topology, workload, algorithm, parameters, the run's shape and memory), so a bad value
// at point 60 of 80 is an error before anything is simulated or written, not after 59 simulations.

#include "api/experiment/Experiment.hpp"

#include <string>
#include <vector>

namespace ccsim::api {

/// By point: the one-line input error of a point that cannot run ("" for one that can). Each topology and workload
/// file is read once, however many points name it.
std::vector<std::string> point_input_errors(const Experiment& e);

} // namespace ccsim::api
