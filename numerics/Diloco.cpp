// DiLoCo's inner and outer steps (numerics/Diloco.hpp).
#include "numerics/Diloco.hpp"

#include "numerics/Optimizers.hpp"

#include <stdexcept>

namespace ccsim::numerics {

DilocoSettings diloco_settings(const Hyper& h)
{
  DilocoSettings s;
  s.inner_steps    = static_cast<long>(hyper_or(h, "inner_steps", static_cast<double>(s.inner_steps)));
  s.outer_lr       = hyper_or(h, "outer_lr", s.outer_lr);
  s.outer_momentum = hyper_or(h, "outer_momentum", s.outer_momentum);
  if (s.inner_steps < 1)
    throw std::invalid_argument("DiLoCo inner_steps must be at least 1");
  return s;
}

void inner_adamw_steps(std::vector<Vec>& params, const std::vector<Vec>& grads, std::vector<AdamState>& inner,
                       const Hyper& h, double lr_scale)
{
  const double lr = lr_scale * hyper_or(h, "lr", 1e-3);
  for (std::size_t w = 0; w < params.size(); ++w)
    adam_update(params[w], grads[w], inner[w], lr, hyper_or(h, "beta1", 0.9), hyper_or(h, "beta2", 0.999),
                hyper_or(h, "eps", 1e-8), hyper_or(h, "weight_decay", 0), /*bias_correction=*/true,
                AdamVariant::ADAMW);
}

void nesterov_outer_step(Eigen::Ref<Vec> global, Eigen::Ref<Vec> momentum, const Eigen::Ref<const Vec>& delta,
                         bool first, double lr, double mu)
{
  const auto m = static_cast<float>(mu);
  if (first)
    momentum = delta;
  else
    momentum = m * momentum + delta;
  global -= static_cast<float>(lr) * (delta + m * momentum);
}

Diloco::Diloco(std::size_t workers, const Hyper& h) : workers_(workers), h_(h), s_(diloco_settings(h)), inner_(workers)
{
}

std::string Diloco::phase() const
{
  // phase() is asked before the step it names (algorithms/Training.cpp), so the coming step is steps_ + 1.
  return (steps_ + 1) % s_.inner_steps == 0 ? "outer" : "inner";
}

void Diloco::step(std::vector<Vec>& params, const std::vector<Vec>& grads)
{
  if (params.size() != workers_ || grads.size() != workers_)
    throw std::invalid_argument("DiLoCo: " + std::to_string(params.size()) + " workers given, " +
                                std::to_string(workers_) + " expected");
  if (global_.size() == 0) { // every worker starts from the same parameters
    global_   = params[0];
    momentum_ = Vec::Zero(global_.size());
  }
  inner_adamw_steps(params, grads, inner_, h_, lr_scale_);
  ++steps_;
  if (steps_ % s_.inner_steps == 0)
    outer_step(params);
}

void Diloco::outer_step(std::vector<Vec>& params)
{
  // Δ = Σ_w (θ - θ_w) / W: each worker divides its difference, then they are summed (prime's zeroband diloco.py,
  // sync_pseudo_gradient: "gloo does not support AVG").
  Vec delta = Vec::Zero(global_.size());
  for (const auto& p : params)
    delta += (global_ - p) / static_cast<float>(workers_);
  bytes_ += ring_allreduce_bytes(static_cast<std::size_t>(delta.size()), workers_);
  nesterov_outer_step(global_, momentum_, delta, !had_outer_, s_.outer_lr, s_.outer_momentum);
  had_outer_ = true;
  for (auto& p : params)
    p = global_;
}

} // namespace ccsim::numerics
