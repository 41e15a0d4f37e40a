// The registry lines: one per algorithm, its descriptor written beside its plan. Adding an algorithm is its
// descriptor (and plan, and update) in its family's folder plus one line here (docs/contributing.md).
// The order is the registry's: `ccsim train` names the trainable algorithms in it, and a train --param key no
// algorithm before declares follows the others in `ccsim train --help` (algorithms/TrainParams.cpp).
#include "algorithms/BuiltinAlgorithms.hpp"

#include "algorithms/dense/DenseAlgorithms.hpp"
#include "algorithms/lowcomm/LowCommAlgorithms.hpp"
#include "algorithms/onebit/OnebitAlgorithms.hpp"
#include "algorithms/pipeline/PipelineAlgorithms.hpp"
#include "algorithms/sharded/ShardedAlgorithms.hpp"
#include "algorithms/sparse/SparseAlgorithms.hpp"

namespace ccsim::algorithms {

std::vector<AlgorithmDescriptor> builtin_algorithms()
{
  std::vector<AlgorithmDescriptor> all;
  // Data parallelism, each with an optimizer for the shared training loop.
  all.push_back(sgd());
  all.push_back(adam());
  all.push_back(lamb());
  all.push_back(onebit_adam());
  all.push_back(naive_onebit_adam());
  all.push_back(onebit_lamb());
  all.push_back(lamb_basic_onebit());
  all.push_back(slamb());
  all.push_back(topk_lamb());
  all.push_back(randk_lamb());
  // Low-communication data parallelism beyond the five papers (issue 47).
  all.push_back(powersgd());
  all.push_back(diloco());
  all.push_back(streaming_diloco());
  all.push_back(demo());
  // Sharded data parallelism (SDP4Bit and its comparisons), each training through the sharded loop.
  all.push_back(megatron_dp());
  all.push_back(sdp4bit());
  all.push_back(qwd());
  all.push_back(qw());
  all.push_back(tlq());
  all.push_back(tlq_hs());
  all.push_back(ulq());
  all.push_back(zeropp());
  // Pipelines (AQ-SGD and its baselines), each training through the pipeline loop.
  all.push_back(fp32_pipeline());
  all.push_back(directq());
  all.push_back(aq_sgd());
  return all;
}

} // namespace ccsim::algorithms
