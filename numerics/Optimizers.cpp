// Optimizer math and the distributed wrappers (dense, 1-bit Adam, naive 1-bit gradient Adam).
#include "numerics/Optimizers.hpp"

#include "numerics/FixedOrder.hpp"
#include "numerics/MomentumMask.hpp"
#include "numerics/PortableMath.hpp"

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
      step_lr = lr * std::sqrt(1 - portable_pow(b2, s.step)) / (1 - portable_pow(b1, s.step));
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
  const double bc1      = bias_correction ? 1 - portable_pow(b1, s.step) : 1.0;
  const double bc2_sqrt = bias_correction ? std::sqrt(1 - portable_pow(b2, s.step)) : 1.0;
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
    const double xn   = fixed_norm(xs.data(), t.size), un = fixed_norm(u.data(), t.size);
    // 1-bit LAMB eq. (1): c = clip(||x|| / ||u||, c_min, c_max); a zero norm keeps the plain step (ratio 1).
    const double ratio = (xn > 0 && un > 0) ? std::clamp(xn / un, c_min, c_max) : 1.0;
    xs -= static_cast<float>(lr * ratio) * u;
  }
}

namespace {
double get(const Hyper& h, const char* key, double fallback)
{
  return hyper_or(h, key, fallback);
}
} // namespace

AdamVariant adam_variant_of(const Hyper& h)
{
  const double v = get(h, "adam_variant", 0);
  if (!(v == 0 || v == 1 || v == 2))
    throw std::invalid_argument("adam_variant must be 0 (apex), 1 (torch) or 2 (adamw)");
  return static_cast<AdamVariant>(static_cast<int>(v));
}

DenseOptimizer::DenseOptimizer(std::string kind, TensorLayout layout, std::size_t workers, const Hyper& h)
    : kind_(std::move(kind)), layout_(std::move(layout)), workers_(workers), h_(h), state_(workers)
{
}

void DenseOptimizer::step(std::vector<Vec>& params, const std::vector<Vec>& grads)
{
  const Vec g = average(grads);
  bytes_ += ring_allreduce_bytes(static_cast<std::size_t>(g.size()), workers_);
  update(params, g);
}

void DenseOptimizer::update(std::vector<Vec>& params, const Vec& g)
{
  for (std::size_t w = 0; w < workers_; ++w) {
    if (kind_ == "sgd") {
      if (state_[w].m.size() == 0)
        state_[w].m = Vec::Zero(g.size());
      state_[w].m = static_cast<float>(get(h_, "beta1", 0.9)) * state_[w].m + g;
      params[w] -= static_cast<float>(lr_scale_ * get(h_, "lr", 0.01)) * state_[w].m;
    } else if (kind_ == "adam") {
      adam_update(params[w], g, state_[w], lr_scale_ * get(h_, "lr", 1e-3), get(h_, "beta1", 0.9),
                  get(h_, "beta2", 0.999), get(h_, "eps", 1e-8), get(h_, "weight_decay", 0),
                  get(h_, "bias_correction", 1) != 0, adam_variant_of(h_));
    } else {
      lamb_update(params[w], g, state_[w], layout_, lr_scale_ * get(h_, "lr", 1e-3), get(h_, "beta1", 0.9),
                  get(h_, "beta2", 0.999), get(h_, "eps", 1e-6), get(h_, "weight_decay", 0), get(h_, "c_min", 0.01),
                  get(h_, "c_max", 0.3));
    }
  }
}

const std::vector<std::string>& compression_unit_names()
{
  static const std::vector<std::string> names = {"model", "tensor"};
  return names;
}

CompressedUnits::CompressedUnits(const TensorLayout& layout, std::size_t workers, const Hyper& h,
                                 const CompressionKernels& kernels)
{
  const double unit = get(h, "compression_unit", 0);
  if (!(unit == 0 || unit == 1))
    throw std::invalid_argument("compression_unit must be 0 (model) or 1 (tensor)");
  std::size_t end = 0;
  for (const auto& t : layout)
    end = std::max(end, t.offset + t.size);
  if (static_cast<CompressionUnit>(static_cast<int>(unit)) == CompressionUnit::TENSOR)
    units_ = layout;
  else
    units_ = {{"all", 0, end}};
  for (const auto& u : units_)
    ars_.emplace_back(u.size, workers, kernels);
}

void CompressedUnits::run(const std::vector<float*>& buffers)
{
  for (std::size_t u = 0; u < units_.size(); ++u) { // adam.py: one compressed_allreduce per parameter it is given
    std::vector<float*> bufs;
    for (float* b : buffers)
      bufs.push_back(b + units_[u].offset);
    ars_[u].run(bufs);
  }
}

std::uint64_t CompressedUnits::bytes_sent_per_worker() const
{
  std::uint64_t sent = 0;
  for (const auto& ar : ars_)
    sent += ar.bytes_sent_per_worker();
  return sent;
}

OnebitAdam::OnebitAdam(std::size_t n, std::size_t workers, const Hyper& h, const CompressionKernels& kernels)
    : OnebitAdam(TensorLayout{{"all", 0, n}}, workers, h, kernels)
{
}

OnebitAdam::OnebitAdam(const TensorLayout& layout, std::size_t workers, const Hyper& h,
                       const CompressionKernels& kernels)
    : workers_(workers), h_(h), state_(workers), ar_(layout, workers, h, kernels),
      freeze_(static_cast<long>(get(h, "freeze_step", 100)))
{
}

void OnebitAdam::step(std::vector<Vec>& params, const std::vector<Vec>& grads)
{
  const double lr = lr_scale_ * get(h_, "lr", 1e-3), b1 = get(h_, "beta1", 0.9), b2 = get(h_, "beta2", 0.999);
  const double eps = get(h_, "eps", 1e-8), wd = get(h_, "weight_decay", 0);
  if (steps_ < freeze_) {
    const Vec g = average(grads);
    bytes_ += ring_allreduce_bytes(static_cast<std::size_t>(g.size()), workers_);
    for (std::size_t w = 0; w < workers_; ++w)
      adam_update(params[w], g, state_[w], lr, b1, b2, eps, wd, /*bias_correction=*/false);
  } else {
    if (steps_ == freeze_ && momentum_mask_of(h_) == MomentumMask::AUTO)
      mask_ = momentum_mask_from_variance(state_[0].v); // every worker holds the same warm-up variance
    for (std::size_t w = 0; w < workers_; ++w)
      state_[w].m = static_cast<float>(b1) * state_[w].m + static_cast<float>(1 - b1) * grads[w];
    std::vector<float*> bufs;
    for (auto& st : state_)
      bufs.push_back(st.m.data());
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

NaiveOnebitAdam::NaiveOnebitAdam(std::size_t n, std::size_t workers, const Hyper& h, const CompressionKernels& kernels)
    : NaiveOnebitAdam(TensorLayout{{"all", 0, n}}, workers, h, kernels)
{
}

NaiveOnebitAdam::NaiveOnebitAdam(const TensorLayout& layout, std::size_t workers, const Hyper& h,
                                 const CompressionKernels& kernels)
    : workers_(workers), h_(h), state_(workers), ar_(layout, workers, h, kernels)
{
}

void NaiveOnebitAdam::step(std::vector<Vec>& params, const std::vector<Vec>& grads)
{
  std::vector<Vec> g = grads;
  std::vector<float*> bufs;
  for (auto& v : g)
    bufs.push_back(v.data());
  ar_.run(bufs);
  for (std::size_t w = 0; w < workers_; ++w)
    adam_update(params[w], g[w], state_[w], lr_scale_ * get(h_, "lr", 1e-3), get(h_, "beta1", 0.9),
                get(h_, "beta2", 0.999), get(h_, "eps", 1e-8), get(h_, "weight_decay", 0),
                get(h_, "bias_correction", 1) != 0, adam_variant_of(h_));
  bytes_ = ar_.bytes_sent_per_worker();
}

} // namespace ccsim::numerics
