// Optimizer math and the distributed wrappers (dense, 1-bit Adam, naive 1-bit gradient Adam).
#include "numerics/Optimizers.hpp"
#include "numerics/MomentumMask.hpp"
#include "numerics/LayerwiseOptimizers.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ccsim::numerics {

Vec average(const std::vector<Vec>& v)
{
  Vec sum = Vec::Zero(v.at(0).size());
  for (const auto& x : v)
    sum += x;
  return sum / static_cast<float>(v.size());
}

std::uint64_t ring_allreduce_bytes(std::size_t numel, std::size_t workers)
{
  return workers < 2 ? 0 : 2ull * (workers - 1) * 4ull * numel / workers;
}

const std::vector<std::string>& adam_variant_names()
{
  static const std::vector<std::string> names = {"apex", "torch", "adamw"};
  return names;
}

void adam_update(Vec& x, const Vec& g, AdamState& s, double lr, double b1, double b2, double eps, double wd,
                 bool bias_correction, AdamVariant variant)
{
  if (s.m.size() == 0)
    s.m = Vec::Zero(x.size()), s.v = Vec::Zero(x.size());
  ++s.step;
  if (variant == AdamVariant::APEX) {
    // apex fused_adam_cuda_kernel.cu, ADAM_MODE_1: one step size carries both corrections and the decay.
    s.m = static_cast<float>(b1) * s.m + static_cast<float>(1 - b1) * g;
    s.v = static_cast<float>(b2) * s.v + static_cast<float>(1 - b2) * g.cwiseProduct(g);
    double step_lr = lr;
    if (bias_correction)
      step_lr = lr * std::sqrt(1 - std::pow(b2, s.step)) / (1 - std::pow(b1, s.step));
    const Vec update = (s.m.array() / (s.v.array().sqrt() + static_cast<float>(eps))).matrix() + static_cast<float>(wd) * x;
    x -= static_cast<float>(step_lr) * update;
    return;
  }
  // torch.optim.Adam / AdamW (torch/optim/adam.py, _single_tensor_adam): Adam's L2 penalty enters the gradient,
  // AdamW's decay shrinks x before the step; eps is added to the bias-corrected sqrt(v).
  const Vec g_used = variant == AdamVariant::TORCH ? Vec(g + static_cast<float>(wd) * x) : g;
  if (variant == AdamVariant::ADAMW)
    x *= static_cast<float>(1 - lr * wd);
  s.m = static_cast<float>(b1) * s.m + static_cast<float>(1 - b1) * g_used;
  s.v = static_cast<float>(b2) * s.v + static_cast<float>(1 - b2) * g_used.cwiseProduct(g_used);
  const double bc1      = bias_correction ? 1 - std::pow(b1, s.step) : 1.0;
  const double bc2_sqrt = bias_correction ? std::sqrt(1 - std::pow(b2, s.step)) : 1.0;
  const Vec denom = ((s.v.array().sqrt() / static_cast<float>(bc2_sqrt)) + static_cast<float>(eps)).matrix();
  x -= static_cast<float>(lr / bc1) * (s.m.array() / denom.array()).matrix();
}

void lamb_update(Vec& x, const Vec& g, AdamState& s, const TensorLayout& layout, double lr, double b1, double b2,
                 double eps, double wd, double c_min, double c_max)
{
  if (s.m.size() == 0)
    s.m = Vec::Zero(x.size()), s.v = Vec::Zero(x.size());
  ++s.step;
  s.m = static_cast<float>(b1) * s.m + static_cast<float>(1 - b1) * g;
  s.v = static_cast<float>(b2) * s.v + static_cast<float>(1 - b2) * g.cwiseProduct(g);
  for (const auto& t : layout) {
    auto xs           = x.segment(static_cast<long>(t.offset), static_cast<long>(t.size));
    const Vec u       = (s.m.segment(static_cast<long>(t.offset), static_cast<long>(t.size)).array() /
                   (s.v.segment(static_cast<long>(t.offset), static_cast<long>(t.size)).array().sqrt() + static_cast<float>(eps)))
                      .matrix() + static_cast<float>(wd) * xs;
    const double xn   = xs.norm(), un = u.norm();
    // 1-bit LAMB eq. (1): c = clip(||x|| / ||u||, c_min, c_max); a zero norm keeps the plain step (ratio 1).
    const double ratio = (xn > 0 && un > 0) ? std::clamp(xn / un, c_min, c_max) : 1.0;
    xs -= static_cast<float>(lr * ratio) * u;
  }
}

double hyper_or(const Hyper& h, const char* key, double fallback)
{
  const auto it = h.find(key);
  return it == h.end() ? fallback : it->second;
}

namespace {
double get(const Hyper& h, const char* key, double fallback)
{
  return hyper_or(h, key, fallback);
}

/// hyper["adam_variant"] (an index into adam_variant_names(); apex when absent).
AdamVariant adam_variant(const Hyper& h)
{
  const double v = get(h, "adam_variant", 0);
  if (!(v == 0 || v == 1 || v == 2))
    throw std::invalid_argument("adam_variant must be 0 (apex), 1 (torch) or 2 (adamw)");
  return static_cast<AdamVariant>(static_cast<int>(v));
}

/// Uncompressed data parallelism: average the gradients (fp32 ring allreduce bytes), then each worker updates.
class Dense : public DistributedOptimizer {
public:
  Dense(std::string kind, TensorLayout layout, std::size_t workers, const Hyper& h)
      : kind_(std::move(kind)), layout_(std::move(layout)), workers_(workers), h_(h), state_(workers)
  {
  }
  void step(std::vector<Vec>& params, const std::vector<Vec>& grads) override
  {
    const Vec g = average(grads);
    bytes_ += ring_allreduce_bytes(static_cast<std::size_t>(g.size()), workers_);
    for (std::size_t w = 0; w < workers_; ++w) {
      if (kind_ == "sgd") {
        if (state_[w].m.size() == 0)
          state_[w].m = Vec::Zero(g.size());
        state_[w].m = static_cast<float>(get(h_, "beta1", 0.9)) * state_[w].m + g;
        params[w] -= static_cast<float>(lr_scale_ * get(h_, "lr", 0.01)) * state_[w].m;
      } else if (kind_ == "adam") {
        adam_update(params[w], g, state_[w], lr_scale_ * get(h_, "lr", 1e-3), get(h_, "beta1", 0.9), get(h_, "beta2", 0.999),
                    get(h_, "eps", 1e-8), get(h_, "weight_decay", 0), get(h_, "bias_correction", 1) != 0,
                    adam_variant(h_));
      } else {
        lamb_update(params[w], g, state_[w], layout_, lr_scale_ * get(h_, "lr", 1e-3), get(h_, "beta1", 0.9), get(h_, "beta2", 0.999),
                    get(h_, "eps", 1e-6), get(h_, "weight_decay", 0), get(h_, "c_min", 0.01), get(h_, "c_max", 0.3));
      }
    }
  }

private:
  std::string kind_;
  TensorLayout layout_;
  std::size_t workers_;
  Hyper h_;
  std::vector<AdamState> state_;
};

/// 1-bit Adam (1-bit Adam Algorithm 1; DeepSpeed fp16/onebit/adam.py, notes §2): Adam on averaged gradients for
/// freeze_step steps, then the variance is frozen and each worker's LOCAL momentum m = b1·m + (1-b1)·g_local
/// goes through the compressed allreduce with error feedback; x -= lr · m / (sqrt(v) + eps). No bias correction.
class OnebitAdam : public DistributedOptimizer {
public:
  OnebitAdam(std::size_t n, std::size_t workers, const Hyper& h, const CompressionKernels& kernels)
      : workers_(workers), h_(h), state_(workers), ar_(n, workers, kernels), freeze_(static_cast<long>(get(h, "freeze_step", 100)))
  {
  }
  std::string phase() const override { return steps_ < freeze_ ? "warmup" : "compressed"; }
  void step(std::vector<Vec>& params, const std::vector<Vec>& grads) override
  {
    const double lr = lr_scale_ * get(h_, "lr", 1e-3), b1 = get(h_, "beta1", 0.9), b2 = get(h_, "beta2", 0.999), eps = get(h_, "eps", 1e-8);
    const double wd = get(h_, "weight_decay", 0);
    if (steps_ < freeze_) {
      const Vec g = average(grads);
      bytes_ += ring_allreduce_bytes(static_cast<std::size_t>(g.size()), workers_);
      for (std::size_t w = 0; w < workers_; ++w)
        adam_update(params[w], g, state_[w], lr, b1, b2, eps, wd, /*bias_correction=*/false);
    } else {
      if (steps_ == freeze_ && momentum_mask_of(h_) == MomentumMask::AUTO)
        mask_ = momentum_mask_from_variance(state_[0].v); // every worker holds the same warm-up variance
      std::vector<float*> bufs;
      for (std::size_t w = 0; w < workers_; ++w) {
        state_[w].m = static_cast<float>(b1) * state_[w].m + static_cast<float>(1 - b1) * grads[w];
        bufs.push_back(state_[w].m.data());
      }
      ar_.run(bufs); // every worker's m becomes the same compressed average
      if (mask_.size() != 0) // adam.py l.217–227: the mask after the compressed all-reduce
        for (auto& s : state_)
          s.m.array() *= mask_.array();
      for (std::size_t w = 0; w < workers_; ++w) {
        const Vec u = (state_[w].m.array() / (state_[w].v.array().sqrt() + static_cast<float>(eps))).matrix() +
                      static_cast<float>(wd) * params[w];
        params[w] -= static_cast<float>(lr) * u;
      }
      bytes_ = warm_bytes_ + ar_.bytes_sent_per_worker();
    }
    ++steps_;
    if (steps_ <= freeze_)
      warm_bytes_ = bytes_;
  }
  const AdamState& state(std::size_t w) const { return state_[w]; }

private:
  std::size_t workers_;
  Hyper h_;
  std::vector<AdamState> state_;
  CompressedAllreduce ar_;
  long freeze_;
  long steps_ = 0;
  std::uint64_t warm_bytes_ = 0;
  Vec mask_; // the momentum mask (numerics/MomentumMask.hpp); empty = none
};

/// The naive baseline of 1-bit Adam §3.2 / Fig. 1: error-feedback 1-bit compression of the GRADIENTS, then
/// Adam (momentum and variance) on the compressed average. The variance sees sign noise, which is why it fails.
class NaiveOnebitAdam : public DistributedOptimizer {
public:
  NaiveOnebitAdam(std::size_t n, std::size_t workers, const Hyper& h, const CompressionKernels& kernels)
      : workers_(workers), h_(h), state_(workers), ar_(n, workers, kernels)
  {
  }
  std::string phase() const override { return "compressed"; }
  void step(std::vector<Vec>& params, const std::vector<Vec>& grads) override
  {
    std::vector<Vec> g = grads;
    std::vector<float*> bufs;
    for (auto& v : g)
      bufs.push_back(v.data());
    ar_.run(bufs);
    for (std::size_t w = 0; w < workers_; ++w)
      adam_update(params[w], g[w], state_[w], lr_scale_ * get(h_, "lr", 1e-3), get(h_, "beta1", 0.9), get(h_, "beta2", 0.999),
                  get(h_, "eps", 1e-8), get(h_, "weight_decay", 0), get(h_, "bias_correction", 1) != 0,
                  adam_variant(h_));
    bytes_ = ar_.bytes_sent_per_worker();
  }

private:
  std::size_t workers_;
  Hyper h_;
  std::vector<AdamState> state_;
  CompressedAllreduce ar_;
};
} // namespace

std::unique_ptr<DistributedOptimizer> make_distributed_optimizer(const std::string& name, const TensorLayout& layout,
                                                                 std::size_t workers, const Hyper& hyper,
                                                                 const CompressionKernels& kernels)
{
  static const std::vector<std::string> keys = {"lr",    "beta1", "beta2",       "beta3",   "eps", "weight_decay",
                                                "bias_correction", "c_min", "c_max", "freeze_step", "r_min", "r_max",
                                                "r_threshold", "k", "H", "seed", "adam_variant", "momentum_mask"};
  for (const auto& [k, _] : hyper)
    if (std::find(keys.begin(), keys.end(), k) == keys.end())
      throw std::invalid_argument("unknown optimizer parameter '" + k + "'");
  adam_variant(hyper); // a bad variant fails here, not at the first step
  momentum_mask_of(hyper);
  std::size_t n = 0;
  for (const auto& t : layout)
    n = std::max(n, t.offset + t.size);
  if (name == "sgd" || name == "adam" || name == "lamb")
    return std::make_unique<Dense>(name, layout, workers, hyper);
  if (name == "onebit-adam")
    return std::make_unique<OnebitAdam>(n, workers, hyper, kernels);
  if (name == "naive-1bit-adam")
    return std::make_unique<NaiveOnebitAdam>(n, workers, hyper, kernels);
  if (name == "onebit-lamb" || name == "lamb-basic-1bit")
    return std::make_unique<OnebitLamb>(layout, n, workers, hyper, /*adapt_ratio=*/name == "onebit-lamb", kernels);
  if (name == "slamb")
    return std::make_unique<Slamb>(layout, n, workers, hyper, kernels);
  if (name == "topk-lamb" || name == "randk-lamb")
    return std::make_unique<SparseLamb>(layout, n, workers, hyper, /*top_k=*/name == "topk-lamb", kernels);
  throw std::invalid_argument("no numeric update for '" + name +
                              "' (trainable: sgd, adam, lamb, onebit-adam, naive-1bit-adam, onebit-lamb, lamb-basic-1bit, "
                              "slamb, topk-lamb, randk-lamb)");
}

} // namespace ccsim::numerics
