#pragma once
// DiLoCo (Douillard et al. 2023, Algorithm 1): every worker runs H inner AdamW steps on its own data from the last
// global parameters, then the workers average their outer gradients Δ = θ - θ_w (one fp32 all-reduce) and an outer
// Nesterov momentum step moves the global parameters: torch.optim.SGD(lr 0.7, momentum 0.9, nesterov=True), the
// paper's §3 settings, as PrimeIntellect's OpenDiLoCo and prime (zeroband/diloco.py) run it:
//   buf = Δ on the first outer step, else buf = μ·buf + Δ;   θ -= lr_outer · (Δ + μ·buf);   every θ_w = θ.
// Each worker's inner optimizer keeps its moments across outer steps (they are never averaged or reset).

#include "numerics/OptimizerTypes.hpp"

#include <cstddef>
#include <vector>

namespace ccsim::numerics {

struct DilocoSettings {
  long inner_steps      = 500; // H (§3: H = 500)
  double outer_lr       = 0.7; // §3, Table: Nesterov outer optimizer
  double outer_momentum = 0.9;
};

/// The settings from `ccsim train` hyper-parameters "inner_steps", "outer_lr" and "outer_momentum".
DilocoSettings diloco_settings(const Hyper& h);

/// DiLoCo's inner step on every worker: torch.optim.AdamW (bias-corrected) at hyper lr x lr_scale, with beta1,
/// beta2, eps and weight_decay (Streaming DiLoCo's too).
void inner_adamw_steps(std::vector<Vec>& params, const std::vector<Vec>& grads, std::vector<AdamState>& inner,
                       const Hyper& h, double lr_scale);

/// torch.optim.SGD(nesterov=True) on one span of the global parameters with its outer gradient `delta`: the buffer
/// becomes delta on the first step, else mu·buffer + delta; global -= lr·(delta + mu·buffer).
void nesterov_outer_step(Eigen::Ref<Vec> global, Eigen::Ref<Vec> momentum, const Eigen::Ref<const Vec>& delta,
                         bool first, double lr, double mu);

/// DiLoCo over W in-process workers. Inner AdamW reads hyper lr, beta1, beta2, eps and weight_decay (torch's AdamW,
/// bias-corrected). Between outer steps the workers' copies differ; after one they are the global parameters.
class Diloco : public DistributedOptimizer {
public:
  Diloco(std::size_t workers, const Hyper& h);
  void step(std::vector<Vec>& params, const std::vector<Vec>& grads) override;
  /// "outer" for a step that ends with the outer step, else "inner".
  std::string phase() const override;
  const Vec& global_params() const { return global_; }
  const Vec& outer_momentum() const { return momentum_; }

private:
  void outer_step(std::vector<Vec>& params);

  std::size_t workers_;
  Hyper h_;
  DilocoSettings s_;
  std::vector<AdamState> inner_;
  Vec global_;   // θ, the parameters of the last outer step (the starting point until the first)
  Vec momentum_; // the outer Nesterov buffer
  long steps_       = 0;
  bool had_outer_ = false; // whether an outer step ran (torch's first step copies the gradient into the buffer)
};

} // namespace ccsim::numerics
