// The algorithms with a numeric update for `ccsim train`: the data-parallel optimizers
// (algorithms/OptimizerFactory.cpp), then the sharded and pipelined training loops (algorithms/TrainingPaths.hpp).
#include "algorithms/Registry.hpp"

#include "algorithms/OptimizerFactory.hpp"

namespace ccsim::algorithms {

std::vector<AlgorithmInfo> update_algorithm_infos()
{
  std::vector<AlgorithmInfo> infos = optimizer_algorithm_infos();
  for (const char* name : {"megatron-dp", "sdp4bit", "qwd", "qw", "tlq", "tlq-hs", "ulq", "zeropp", "fp32-pipeline",
                           "directq", "aq-sgd"})
    infos.push_back({name, "", /*simulates=*/false, /*trains=*/true});
  return infos;
}

} // namespace ccsim::algorithms
