// The algorithms with a numeric update for `ccsim train` (numerics::make_distributed_optimizer).
#include "algorithms/Registry.hpp"

namespace ccsim::algorithms {

std::vector<AlgorithmInfo> update_algorithm_infos()
{
  return {{"sgd", "momentum SGD on averaged gradients (train only)", false, true},
          {"adam", "", false, true},
          {"lamb", "", false, true},
          {"onebit-adam", "", false, true},
          {"naive-1bit-adam", "", false, true},
          {"onebit-lamb", "", false, true},
          {"lamb-basic-1bit", "", false, true},
          {"slamb", "", false, true},
          {"topk-lamb", "", false, true},
          {"randk-lamb", "", false, true},
          {"megatron-dp", "", false, true},
          {"sdp4bit", "", false, true},
          {"qwd", "", false, true},
          {"qw", "", false, true},
          {"tlq", "", false, true},
          {"tlq-hs", "", false, true},
          {"ulq", "", false, true},
          {"zeropp", "", false, true},
          {"fp32-pipeline", "", false, true},
          {"directq", "", false, true},
          {"aq-sgd", "", false, true}};
}

} // namespace ccsim::algorithms
