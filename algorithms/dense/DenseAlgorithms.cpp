// Descriptors of the uncompressed data-parallel algorithms; their update is numerics::DenseOptimizer.
#include "algorithms/dense/DenseAlgorithms.hpp"

#include "algorithms/TrainParams.hpp"
#include "algorithms/dense/DensePlan.hpp"

#include "numerics/Optimizers.hpp"

namespace ccsim::algorithms {

namespace {
std::unique_ptr<numerics::DistributedOptimizer> make_dense(const OptimizerArgs& a)
{
  return std::make_unique<numerics::DenseOptimizer>(a.name, a.layout, a.workers, a.hyper);
}

/// A data-parallel algorithm with its plan (Adam's or LAMB's step after a gradient all-reduce) and ZeRO stages.
AlgorithmDescriptor dense(std::string name, std::string description)
{
  AlgorithmDescriptor d;
  d.name        = std::move(name);
  d.description = std::move(description);
  d.plan        = std::make_shared<DensePlan>(d.name, d.name);
  d.optimizer   = make_dense;
  d.zero_stages = {0}; // every GPU keeps the whole optimizer state (ZeRO over them is not modelled)
  // Its all-reduce's bytes per rank do not depend on the group's size, which with context parallelism is dp x cp.
  d.context_parallel = true;
  return d;
}
} // namespace

AlgorithmDescriptor sgd()
{
  AlgorithmDescriptor d;
  d.name         = "sgd";
  d.description  = "momentum SGD on averaged gradients (train only)";
  d.optimizer    = make_dense; // no plan: nothing to simulate, so no ZeRO stages either
  d.train_params = {train_keys::lr(), train_keys::beta1()};
  d.family       = "data-parallel SGD";
  d.baseline     = d.name;
  return d;
}

AlgorithmDescriptor adam()
{
  AlgorithmDescriptor d = dense("adam", "data-parallel Adam, fp16 gradient allreduce");
  d.train_params        = train_keys::data_parallel({train_keys::bias_correction(), train_keys::adam_variant()});
  d.family              = "data-parallel Adam";
  d.baseline            = d.name;
  // BERT-style runs (1-bit Adam §7) train data parallel against Adam.
  d.reference_for_parallelism = true;
  return d;
}

AlgorithmDescriptor lamb()
{
  AlgorithmDescriptor d = dense("lamb", "data-parallel LAMB, fp16 gradient allreduce");
  d.train_params        = train_keys::data_parallel({train_keys::c_min(), train_keys::c_max(0.3)});
  d.family              = "data-parallel LAMB";
  d.baseline            = d.name;
  return d;
}

} // namespace ccsim::algorithms
