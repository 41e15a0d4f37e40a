// The algorithms with a numeric update for `ccsim train`: the data-parallel optimizers
// (algorithms/OptimizerFactory.cpp), then the sharded and pipelined training loops (algorithms/TrainingPaths.hpp).
#include "algorithms/Registry.hpp"

#include "algorithms/OptimizerFactory.hpp"
#include "algorithms/TrainingPaths.hpp"

namespace ccsim::algorithms {

std::vector<AlgorithmInfo> update_algorithm_infos()
{
  std::vector<AlgorithmInfo> infos = optimizer_algorithm_infos();
  for (const auto* loop : {&sharded_training_algorithms(), &pipeline_training_algorithms()})
    for (const auto& name : *loop)
      infos.push_back({name, "", /*simulates=*/false, /*trains=*/true});
  return infos;
}

} // namespace ccsim::algorithms
