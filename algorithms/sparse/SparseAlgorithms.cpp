// Descriptors of the sparsified LAMB methods. k (and SLAMB's H) are the plans' own declarations (SparsePlan.hpp),
// so `ccsim simulate --param k=...` and `ccsim train --param k=...` take the same key, range and default.
#include "algorithms/sparse/SparseAlgorithms.hpp"

#include "algorithms/TrainParams.hpp"
#include "algorithms/sparse/SparsePlan.hpp"

#include "numerics/LayerwiseOptimizers.hpp"

namespace ccsim::algorithms {

namespace {
ParamSpec mask_seed()
{
  return {"seed", 0, "seed of the shared random-k mask", {0, 9007199254740992.0}, true};
}

std::unique_ptr<numerics::DistributedOptimizer> make_slamb(const OptimizerArgs& a)
{
  return std::make_unique<numerics::Slamb>(a.layout, a.n, a.workers, a.hyper, a.kernels);
}

std::unique_ptr<numerics::DistributedOptimizer> make_topk_lamb(const OptimizerArgs& a)
{
  return std::make_unique<numerics::SparseLamb>(a.layout, a.n, a.workers, a.hyper, /*top_k=*/true, a.kernels);
}

std::unique_ptr<numerics::DistributedOptimizer> make_randk_lamb(const OptimizerArgs& a)
{
  return std::make_unique<numerics::SparseLamb>(a.layout, a.n, a.workers, a.hyper, /*top_k=*/false, a.kernels);
}

/// A sparsified LAMB, compared against LAMB uncompressed.
AlgorithmDescriptor sparse(std::string name, SparseKind kind, std::string description, OptimizerMaker make)
{
  AlgorithmDescriptor d;
  d.name        = std::move(name);
  d.description = std::move(description);
  d.plan        = std::make_shared<SparsePlan>(d.name, kind);
  d.optimizer   = make;
  d.zero_stages = {0}; // every GPU keeps the whole optimizer state (ZeRO over them is not modelled)
  d.family      = "data-parallel LAMB";
  d.baseline    = "lamb";
  return d;
}

/// A naive sparsifier (SLAMB's baselines): LAMB with k, its mask's seed and one error-feedback residual.
AlgorithmDescriptor error_feedback(std::string name, SparseKind kind, std::string description, OptimizerMaker make)
{
  AlgorithmDescriptor d = sparse(std::move(name), kind, std::move(description), make);
  d.train_params        = train_keys::data_parallel(
      {train_keys::c_min(), train_keys::c_max(0.3), sparse_fraction_param(), mask_seed()});
  d.memory              = {1, 0, 0}; // the residual of the momentum the error feedback keeps
  return d;
}
} // namespace

AlgorithmDescriptor slamb()
{
  AlgorithmDescriptor d = sparse("slamb", SparseKind::SLAMB,
                                 "SLAMB: shared random-k momentum allreduce + model average every H", make_slamb);
  // SLAMB's reference clips the trust ratio at 1000, not LAMB's 0.3 (numerics::Slamb; notes §6).
  d.train_params = train_keys::data_parallel({train_keys::c_min(), train_keys::c_max(1000), train_keys::beta3(),
                                              sparse_fraction_param(), model_average_interval_param(), mask_seed()});
  // Its staleness vector c_t (Appendix E) plus 0.7 copies of step intermediates, so that SLAMB Table 9's
  // (7.9 - 5.6) GB / 1.34 GB = 1.7 copies of BERT-Large's fp32 parameters over LAMB come out: the split is a
  // hypothesis supported by that one table only.
  d.memory = {1, 0, 0.7};
  d.claim  = PaperClaim::SLAMB;
  return d;
}

AlgorithmDescriptor topk_lamb()
{
  return error_feedback("topk-lamb", SparseKind::TOP_K, "baseline: top-k sparsified LAMB, values+indices all-gathered",
                        make_topk_lamb);
}

AlgorithmDescriptor randk_lamb()
{
  return error_feedback("randk-lamb", SparseKind::RANDOM_K,
                        "baseline: random-k (shared seed) sparsified LAMB with error feedback", make_randk_lamb);
}

} // namespace ccsim::algorithms
