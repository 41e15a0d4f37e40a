// The layer-wise compressed optimizers: 1-bit LAMB, LAMB with basic 1-bit compression, SLAMB, and the
// sparsified-gradient LAMB baselines. Each choice that resolves a paper ambiguity cites its source.
#include "numerics/LayerwiseOptimizers.hpp"

#include "numerics/FixedOrder.hpp"
#include "numerics/MomentumMask.hpp"
#include "numerics/Optimizers.hpp"
#include "numerics/PortableMath.hpp"
#include "numerics/Sparsifiers.hpp"

#include <algorithm>
#include <cmath>

namespace ccsim::numerics {

namespace {
double get(const Hyper& h, const char* key, double fallback)
{
  return hyper_or(h, key, fallback);
}

long seg(std::size_t v) { return static_cast<long>(v); }
} // namespace

// ---------------------------------------------------------------- 1-bit LAMB
OnebitLamb::OnebitLamb(TensorLayout layout, std::size_t n, std::size_t workers, const Hyper& h, bool adapt_ratio,
                       const CompressionKernels& kernels)
    : layout_(std::move(layout)), n_(n), workers_(workers), h_(h), adapt_(adapt_ratio), state_(workers),
      ar_(n, workers, kernels, PaddingTail::PREVIOUS_OUTPUT), // lamb.py's fused buffer keeps its padding
      freeze_(static_cast<long>(get(h, "freeze_step", 100))), c_avg_(layout_.size(), 0.0), last_factor_(layout_.size(), 1.0),
      scaling_(layout_.size(), 1.0f)
{
}

void OnebitLamb::step(std::vector<Vec>& params, const std::vector<Vec>& grads)
{
  const double lr = lr_scale_ * get(h_, "lr", 1e-3), b1 = get(h_, "beta1", 0.9), b2 = get(h_, "beta2", 0.999);
  const double eps = get(h_, "eps", 1e-8), wd = get(h_, "weight_decay", 0), b3 = get(h_, "beta3", 0.9);
  const double c_min = get(h_, "c_min", 0.01), c_max = get(h_, "c_max", 0.3);
  // 1-bit LAMB §6 "Training parameters": r_min 0.5, r_max 4.0, r_threshold 0.1.
  const double r_min = get(h_, "r_min", 0.5), r_max = get(h_, "r_max", 4.0), r_thr = get(h_, "r_threshold", 0.1);

  if (steps_ < freeze_) {
    // Warm-up: LAMB on the averaged gradient, no bias correction (lamb.py l.226–251), and c_avg += EMA of c.
    const Vec g = average(grads);
    bytes_ += ring_allreduce_bytes(n_, workers_);
    for (std::size_t w = 0; w < workers_; ++w) {
      auto& s = state_[w];
      if (s.m.size() == 0)
        s.m = Vec::Zero(seg(n_)), s.v = Vec::Zero(seg(n_));
      s.m = static_cast<float>(b1) * s.m + static_cast<float>(1 - b1) * g;
      s.v = static_cast<float>(b2) * s.v + static_cast<float>(1 - b2) * g.cwiseProduct(g);
      for (std::size_t l = 0; l < layout_.size(); ++l) {
        const auto& t = layout_[l];
        auto x        = params[w].segment(seg(t.offset), seg(t.size));
        const Vec u   = (s.m.segment(seg(t.offset), seg(t.size)).array() /
                       (s.v.segment(seg(t.offset), seg(t.size)).array().sqrt() + static_cast<float>(eps))).matrix() +
                      static_cast<float>(wd) * x;
        const double xn = fixed_norm(x.data(), t.size), un = fixed_norm(u.data(), t.size);
        const double c  = (xn > 0 && un > 0) ? std::clamp(xn / un, c_min, c_max) : 1.0;
        // Algorithm 1 line 2; lamb.py updates the EMA only when c != 1 (a skipped tensor), from 0, no bias correction.
        if (w == 0 && c != 1.0)
          c_avg_[l] = b3 * c_avg_[l] + (1 - b3) * c;
        x -= static_cast<float>(lr * c) * u;
      }
    }
    ++steps_;
    if (steps_ == freeze_) // Algorithm 1 line 3: keep v frozen, keep a fresh copy that goes on updating
      for (auto& s : state_)
        v_fresh_.push_back(s.v);
    warm_bytes_ = bytes_;
    return;
  }

  if (steps_ == freeze_) {
    // First compressed step: per-tensor momentum scaling so one shared sign/scale suits every layer
    // (appendix A.5.2; lamb.py l.175–186: scaling_i = mean_j(rms_j) / rms_i).
    std::vector<double> rms(layout_.size());
    for (std::size_t l = 0; l < layout_.size(); ++l)
      rms[l] = fixed_norm(state_[0].m.data() + layout_[l].offset, layout_[l].size) / std::sqrt(double(layout_[l].size));
    double united = 0;
    for (double r : rms)
      united += r / static_cast<double>(rms.size());
    for (std::size_t l = 0; l < layout_.size(); ++l)
      scaling_[l] = rms[l] > 0 ? static_cast<float>(united / rms[l]) : 1.0f;
    if (momentum_mask_of(h_) == MomentumMask::AUTO)
      mask_ = momentum_mask_from_variance(state_[0].v); // every worker holds the same warm-up variance
  }
  std::vector<Vec> m_prev(workers_);
  std::vector<float*> bufs;
  for (std::size_t w = 0; w < workers_; ++w) {
    auto& s   = state_[w];
    m_prev[w] = s.m;
    s.m       = static_cast<float>(b1) * s.m + static_cast<float>(1 - b1) * grads[w]; // local momentum, line 6
    for (std::size_t l = 0; l < layout_.size(); ++l)
      s.m.segment(seg(layout_[l].offset), seg(layout_[l].size)) *= scaling_[l];
    bufs.push_back(s.m.data());
  }
  ar_.run(bufs); // lines 7–13: worker and server error feedback, one fused buffer
  for (std::size_t w = 0; w < workers_; ++w) {
    auto& s = state_[w];
    for (std::size_t l = 0; l < layout_.size(); ++l) {
      const auto& t = layout_[l];
      auto m        = s.m.segment(seg(t.offset), seg(t.size));
      m /= scaling_[l];
      if (mask_.size() != 0) // lamb.py: the mask right after the momentum is un-scaled
        m.array() *= mask_.segment(seg(t.offset), seg(t.size)).array();
      auto x        = params[w].segment(seg(t.offset), seg(t.size));
      const Vec denom   = (s.v.segment(seg(t.offset), seg(t.size)).array().sqrt() + static_cast<float>(eps)).matrix();
      const Vec prelim  = (m.array() / denom.array()).matrix();
      const Vec update  = prelim + static_cast<float>(wd) * x;
      double coeff = c_avg_[l];
      if (adapt_) {
        // Lines 15–19 with lamb.py's choices: reconstructed gradient, fresh variance, ratio on sqrt(v) with eps,
        // max over elements, blended towards 1 by weight decay's share of the update, clipped to [r_min, r_max]
        // then to ±r_threshold of the last ratio.
        const Vec g_rec = (m - static_cast<float>(b1) * m_prev[w].segment(seg(t.offset), seg(t.size))) / static_cast<float>(1 - b1);
        auto vf         = v_fresh_[w].segment(seg(t.offset), seg(t.size));
        vf              = static_cast<float>(b2) * vf + static_cast<float>(1 - b2) * g_rec.cwiseProduct(g_rec);
        // Every worker holds the same m, m_prev and fresh variance, so worker 0's ratio is everyone's.
        if (w == 0) {
          const Vec ratio = (denom.array() / (vf.array().sqrt() + static_cast<float>(eps))).matrix();
          double factor   = fixed_max(ratio.data(), t.size);
          if (wd > 0) {
            // DeepSpeed lamb.py l.354–357 (deepspeedai/DeepSpeed edaa722), compression stage only: the variance ratio
            // speaks for the Adam part of the update, not for the decay term, so it is blended towards 1 by
            // r = min(1, ||m/denom|| / ||m/denom + wd·x||): factor = factor·r + (1 - r), before the clips of
            // l.358–365. A zero update norm gives torch 0/0 = NaN and Python's min(1.0, NaN) = 1.0: factor unchanged.
            const double un = fixed_norm(update.data(), t.size);
            const double r  = un > 0 ? std::min(1.0, fixed_norm(prelim.data(), t.size) / un) : 1.0;
            factor          = factor * r + (1.0 - r);
          }
          factor          = std::clamp(factor, r_min, r_max);
          last_factor_[l] = std::clamp(factor, last_factor_[l] * (1 - r_thr), last_factor_[l] * (1 + r_thr));
        }
        coeff *= last_factor_[l];
      }
      x -= static_cast<float>(lr * coeff) * update; // line 21
    }
  }
  bytes_ = warm_bytes_ + ar_.bytes_sent_per_worker();
  ++steps_;
}

// ---------------------------------------------------------------- SLAMB
Slamb::Slamb(TensorLayout layout, std::size_t n, std::size_t workers, const Hyper& h, const CompressionKernels& kernels)
    : layout_(std::move(layout)), n_(n), workers_(workers), h_(h), kernels_(&kernels), state_(workers),
      staleness_(workers, Vec::Ones(static_cast<long>(n)))
{
}

void Slamb::step(std::vector<Vec>& params, const std::vector<Vec>& grads)
{
  const double lr = lr_scale_ * get(h_, "lr", 1e-3), b1 = get(h_, "beta1", 0.9), b2 = get(h_, "beta2", 0.999);
  const double eps = get(h_, "eps", 1e-6), wd = get(h_, "weight_decay", 0);
  const double b3 = get(h_, "beta3", 0.93), k = get(h_, "k", 0.1);
  const long H    = static_cast<long>(get(h_, "H", 100));
  const double c_min = get(h_, "c_min", 0.01), c_max = get(h_, "c_max", 1000); // reference defaults (notes §6)
  ++steps_;
  // Line 6: the mask from a seed every worker shares, so only values travel (SLAMB §4.1).
  const auto mask = random_k_indices(n_, k, static_cast<std::uint64_t>(get(h_, "seed", 44)), static_cast<std::uint64_t>(steps_));
  std::vector<char> in_mask(n_, 0);
  for (auto i : mask)
    in_mask[i] = 1;
  // Lines 7–8: local momentum, then the masked entries averaged (one allreduce of k·n values). The gradient
  // itself is not synchronised: the reference implementation does not, and Table 13 shows it changes nothing.
  std::vector<float> avg(mask.size(), 0.0f), picked(mask.size());
  for (std::size_t w = 0; w < workers_; ++w) {
    auto& s = state_[w];
    if (s.m.size() == 0)
      s.m = Vec::Zero(seg(n_)), s.v = Vec::Zero(seg(n_));
    s.m = static_cast<float>(b1) * s.m + static_cast<float>(1 - b1) * grads[w];
    s.v = static_cast<float>(b2) * s.v + static_cast<float>(1 - b2) * grads[w].cwiseProduct(grads[w]);
    kernels_->gather(s.m.data(), n_, mask.data(), mask.size(), picked.data()); // the k values this worker sends
    for (std::size_t j = 0; j < mask.size(); ++j)
      avg[j] += picked[j] / static_cast<float>(workers_);
  }
  bytes_ += ring_allreduce_bytes(mask.size(), workers_);
  const double bc1 = 1 - portable_pow(b1, steps_), bc2 = 1 - portable_pow(b2, steps_);
  for (std::size_t w = 0; w < workers_; ++w) {
    auto& s = state_[w];
    kernels_->scatter(avg.data(), mask.data(), mask.size(), s.m.data(), n_); // the averaged values back in place
    // Line 13: staleness c = 1 where synchronised this step, decays by beta3 elsewhere.
    Vec& c = staleness_[w];
    for (std::size_t i = 0; i < n_; ++i)
      c[seg(i)] = in_mask[i] ? 1.0f : static_cast<float>(b3) * c[seg(i)];
    const Vec u = ((s.m.array() / static_cast<float>(bc1)) / ((s.v.array() / static_cast<float>(bc2)).sqrt() + static_cast<float>(eps))).matrix() +
                  static_cast<float>(wd) * params[w];
    for (const auto& t : layout_) {
      // Lines 15–19: trust ratios of the synchronised and the local part, blended per element by staleness,
      // and eta / sqrt(n) for stale coordinates (reference Slamb, optimizer.py l.598–655).
      double xs = 0, us = 0, xl = 0, ul = 0;
      for (std::size_t i = t.offset; i < t.offset + t.size; ++i) {
        const double xv = params[w][seg(i)], uv = u[seg(i)];
        (in_mask[i] ? xs : xl) += xv * xv;
        (in_mask[i] ? us : ul) += uv * uv;
      }
      const double tr_sync  = (xs > 0 && us > 0) ? std::sqrt(xs / us) : 1.0;
      const double tr_local = (xl > 0 && ul > 0) ? std::sqrt(xl / ul) : 1.0;
      for (std::size_t i = t.offset; i < t.offset + t.size; ++i) {
        const double r     = c[seg(i)];
        const double trust = std::clamp(r * tr_sync + (1 - r) * tr_local, c_min, c_max);
        const double eta   = r * lr + (1 - r) * lr / std::sqrt(static_cast<double>(workers_));
        params[w][seg(i)] -= static_cast<float>(trust * eta * u[seg(i)]);
      }
    }
  }
  if (steps_ % H == 0) { // lines 21–22: average the models every H steps
    const Vec mean = average(params);
    for (auto& p : params)
      p = mean;
    bytes_ += ring_allreduce_bytes(n_, workers_);
  }
}

// ---------------------------------------------------------------- sparsified-gradient LAMB baselines
SparseLamb::SparseLamb(TensorLayout layout, std::size_t n, std::size_t workers, const Hyper& h, bool top_k,
                       const CompressionKernels& kernels)
    : layout_(std::move(layout)), n_(n), workers_(workers), h_(h), top_k_(top_k), kernels_(&kernels), state_(workers),
      error_(workers, Vec::Zero(static_cast<long>(n)))
{
}

void SparseLamb::step(std::vector<Vec>& params, const std::vector<Vec>& grads)
{
  const double k = get(h_, "k", 0.1);
  ++steps_;
  // Error feedback on the gradient (1-bit LAMB §3.4's naive baselines): e += g, send the selected part, keep the rest.
  Vec sum     = Vec::Zero(seg(n_));
  const auto shared = random_k_indices(n_, k, static_cast<std::uint64_t>(get(h_, "seed", 44)), static_cast<std::uint64_t>(steps_));
  const auto count  = static_cast<std::size_t>(std::ceil(k * static_cast<double>(n_)));
  std::vector<float> picked(count);
  const std::vector<float> zeros(count, 0.0f);
  for (std::size_t w = 0; w < workers_; ++w) {
    error_[w] += grads[w];
    const auto idx = top_k_ ? kernels_->top_k_indices(error_[w].data(), n_, count) : shared;
    // Send the selected entries and keep the rest as error: gather them, then zero them (sent exactly).
    kernels_->gather(error_[w].data(), n_, idx.data(), idx.size(), picked.data());
    for (std::size_t j = 0; j < idx.size(); ++j)
      sum[idx[j]] += picked[j];
    kernels_->scatter(zeros.data(), idx.data(), idx.size(), error_[w].data(), n_);
  }
  const Vec g = sum / static_cast<float>(workers_);
  // top-k: every worker's (value, index) pairs are all-gathered; random-k: the shared-mask values all-reduced.
  bytes_ += top_k_ ? 8ull * count * (workers_ - 1) : ring_allreduce_bytes(count, workers_);
  for (std::size_t w = 0; w < workers_; ++w)
    lamb_update(params[w], g, state_[w], layout_, lr_scale_ * get(h_, "lr", 1e-3), get(h_, "beta1", 0.9), get(h_, "beta2", 0.999),
                get(h_, "eps", 1e-6), get(h_, "weight_decay", 0), get(h_, "c_min", 0.01), get(h_, "c_max", 0.3));
}

} // namespace ccsim::numerics
