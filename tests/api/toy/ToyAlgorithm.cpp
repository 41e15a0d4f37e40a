// The toy algorithm's plan, update and descriptor; see ToyAlgorithm.hpp.
#include "tests/api/toy/ToyAlgorithm.hpp"

#include "algorithms/PlanHelpers.hpp"
#include "algorithms/TrainParams.hpp"

#include "numerics/Optimizers.hpp"

#include <cmath>

namespace ccsim::test {

namespace {
class ToyPlan : public algorithms::PlanAlgorithm {
public:
  std::string name() const override { return kToyName; }
  std::vector<algorithms::ParamSpec> param_specs() const override
  {
    return {toy_share_param(), algorithms::grad_bytes_param()};
  }
  sim::StepPlan plan(const sim::StepShape& s, const algorithms::ParamValues& p) const override
  {
    const double share = algorithms::checked(p, "toy_share", 0, 1);
    const auto bytes   = static_cast<std::uint64_t>(share * algorithms::grad_bytes(p, s) * s.params_per_rank);
    sim::PhasePlan phase{"dense", 1.0, {}, std::nullopt};
    phase.ops.push_back(algorithms::under_backward(algorithms::collective(
        "allreduce gradient share", sim::Collective::ALL_REDUCE, sim::GroupKind::DATA_PARALLEL, bytes)));
    phase.ops.push_back(algorithms::optimizer("adam", s.params_per_rank));
    algorithms::add_model_parallel_work(phase, s);
    return {{phase}};
  }
};

/// x -= lr · mean(g) on every worker; bytes: the ring all-reduce of ceil(share · n) fp32 values per step.
class ToyUpdate : public numerics::DistributedOptimizer {
public:
  ToyUpdate(std::size_t workers, const numerics::Hyper& h) : workers_(workers), h_(h) {}
  void step(std::vector<numerics::Vec>& params, const std::vector<numerics::Vec>& grads) override
  {
    const numerics::Vec g   = numerics::average(grads);
    const double share      = numerics::hyper_or(h_, "toy_share", 1);
    const auto sent         = static_cast<std::size_t>(std::ceil(share * static_cast<double>(g.size())));
    bytes_                 += numerics::ring_allreduce_bytes(sent, workers_);
    for (auto& x : params)
      x -= static_cast<float>(lr_scale_ * numerics::hyper_or(h_, "lr", 0.01)) * g;
  }

private:
  std::size_t workers_;
  numerics::Hyper h_;
};

std::unique_ptr<numerics::DistributedOptimizer> make_toy(const algorithms::OptimizerArgs& a)
{
  return std::make_unique<ToyUpdate>(a.workers, a.hyper);
}
} // namespace

algorithms::ParamSpec toy_share_param()
{
  return {"toy_share", 1, "share of the gradients all-reduced per step", {0, 1, true}};
}

algorithms::AlgorithmDescriptor toy_algorithm()
{
  algorithms::AlgorithmDescriptor d;
  d.name         = kToyName;
  d.description  = "toy: a share of the gradients all-reduced, SGD";
  d.zero_stages  = {0};
  d.plan         = std::make_shared<ToyPlan>();
  d.optimizer    = make_toy;
  d.train_params = {algorithms::train_keys::lr(), toy_share_param()};
  d.memory       = {1, 0, 0}; // say, a residual of the share not sent
  d.family       = "data-parallel Adam";
  d.baseline     = "adam";
  return d;
}

} // namespace ccsim::test
