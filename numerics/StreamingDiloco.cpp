// Streaming DiLoCo's fragments, exchanges and mixing (numerics/StreamingDiloco.hpp).
#include "numerics/StreamingDiloco.hpp"

#include "numerics/Diloco.hpp"
#include "numerics/Fp4.hpp"
#include "numerics/Optimizers.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ccsim::numerics {

namespace {
/// k for a tensor named "l<k>.…", else -1.
long block_of(const std::string& name)
{
  if (name.size() < 3 || name[0] != 'l')
    return -1;
  std::size_t i = 1;
  long k        = 0;
  while (i < name.size() && name[i] >= '0' && name[i] <= '9')
    k = k * 10 + (name[i++] - '0');
  return (i > 1 && i < name.size() && name[i] == '.') ? k : -1;
}
} // namespace

StreamingDilocoSettings streaming_diloco_settings(const Hyper& h)
{
  StreamingDilocoSettings s;
  s.inner_steps    = static_cast<long>(hyper_or(h, "inner_steps", static_cast<double>(s.inner_steps)));
  s.fragments      = static_cast<long>(hyper_or(h, "fragments", static_cast<double>(s.fragments)));
  s.overlap_steps  = static_cast<long>(hyper_or(h, "overlap_steps", static_cast<double>(s.overlap_steps)));
  s.mixing         = hyper_or(h, "mixing", s.mixing);
  s.outer_lr       = hyper_or(h, "outer_lr", s.outer_lr);
  s.outer_momentum = hyper_or(h, "outer_momentum", s.outer_momentum);
  const double bits = hyper_or(h, "outer_bits", 4);
  if (bits != 4 && bits != 32)
    throw std::invalid_argument("Streaming DiLoCo trains with outer_bits 4 (E3M0) or 32 (fp32), not " +
                                std::to_string(static_cast<long>(bits)));
  s.fp4 = bits == 4;
  if (s.inner_steps < 1)
    throw std::invalid_argument("Streaming DiLoCo inner_steps must be at least 1");
  if (s.overlap_steps < 0 || s.overlap_steps >= s.inner_steps)
    throw std::invalid_argument("Streaming DiLoCo overlap_steps must be below inner_steps (Algorithm 2: tau < H)");
  return s;
}

long streaming_fragment_count(long fragments, long blocks)
{
  const long usable = std::max<long>(1, blocks);
  return std::clamp<long>(fragments > 0 ? fragments : (usable + 2) / 3, 1, usable);
}

std::vector<std::vector<std::size_t>> streaming_fragments(const TensorLayout& layout, long fragments)
{
  // Each tensor's block: its own, else the next block's (before the first), else the last block's.
  std::vector<long> block(layout.size(), -1);
  long last = -1;
  for (std::size_t i = 0; i < layout.size(); ++i)
    if ((block[i] = block_of(layout[i].name)) >= 0)
      last = std::max(last, block[i]);
  const long blocks = last + 1;
  if (blocks == 0)
    block.assign(layout.size(), 0);
  long next = -1;
  for (std::size_t i = layout.size(); i-- > 0;) {
    if (block[i] >= 0)
      next = block[i];
    else
      block[i] = next >= 0 ? next : last;
  }
  const long p = streaming_fragment_count(fragments, blocks);
  std::vector<std::vector<std::size_t>> out(static_cast<std::size_t>(p));
  for (std::size_t i = 0; i < layout.size(); ++i)
    out[static_cast<std::size_t>(block[i] % p)].push_back(i);
  return out;
}

StreamingDiloco::StreamingDiloco(const TensorLayout& layout, std::size_t workers, const Hyper& h,
                                 const CompressionKernels& kernels)
    : kernels_(&kernels), layout_(layout), workers_(workers), h_(h), s_(streaming_diloco_settings(h)),
      fragments_(streaming_fragments(layout, s_.fragments)), inner_(workers), has_momentum_(fragments_.size(), false)
{
  if (static_cast<long>(fragments_.size()) > s_.inner_steps)
    throw std::invalid_argument("Streaming DiLoCo: " + std::to_string(fragments_.size()) +
                                " fragments need at least as many inner_steps (one fragment sent per step)");
}

bool StreamingDiloco::sends_after(long step, std::size_t p) const
{
  // Fragment p's offset t_p = p·H/P; it sends after steps t_p + kH, k >= 1 (Algorithm 2, line 6).
  const long offset = static_cast<long>(p) * s_.inner_steps / static_cast<long>(fragments_.size());
  return step > offset && (step - offset) % s_.inner_steps == 0;
}

std::string StreamingDiloco::phase() const
{
  for (std::size_t p = 0; p < fragments_.size(); ++p)
    if (sends_after(steps_ + 1, p))
      return "sync";
  return "inner";
}

void StreamingDiloco::send(std::size_t p, const std::vector<Vec>& params)
{
  InFlight f{p, steps_ + s_.overlap_steps, Vec::Zero(global_.size())};
  std::uint64_t values = 0;
  for (const std::size_t t : fragments_[p]) {
    const auto off = static_cast<long>(layout_[t].offset), len = static_cast<long>(layout_[t].size);
    values += layout_[t].size;
    Vec sent(len);
    for (const auto& x : params) { // each worker's outer gradient, quantised before it is sent (line 8)
      sent = global_.segment(off, len) - x.segment(off, len);
      if (s_.fp4)
        kernels_->quantize_e3m0(sent.data(), layout_[t].size, sent.data());
      f.delta.segment(off, len) += sent / static_cast<float>(workers_); // fp32 accumulation
    }
  }
  // A ring all-reduce of the fragment at 4 bits (or 32) a value, plus one fp32 scale per tensor and worker.
  const std::uint64_t bits = s_.fp4 ? 4 : 32;
  bytes_ += ring_allreduce_bytes(values, workers_) * bits / 32;
  if (s_.fp4 && workers_ > 1)
    bytes_ += 4ull * fragments_[p].size() * (workers_ - 1);
  in_flight_.push_back(std::move(f));
}

void StreamingDiloco::apply(InFlight& f, std::vector<Vec>& params)
{
  // The outer Nesterov step on the fragment (as numerics::Diloco's), then the mixing.
  const auto alpha = static_cast<float>(s_.mixing);
  for (const std::size_t t : fragments_[f.fragment]) {
    const auto off = static_cast<long>(layout_[t].offset), len = static_cast<long>(layout_[t].size);
    nesterov_outer_step(global_.segment(off, len), momentum_.segment(off, len), f.delta.segment(off, len),
                        !has_momentum_[f.fragment], s_.outer_lr, s_.outer_momentum);
    for (auto& x : params)
      x.segment(off, len) = alpha * x.segment(off, len) + (1 - alpha) * global_.segment(off, len);
  }
  has_momentum_[f.fragment] = true;
}

void StreamingDiloco::step(std::vector<Vec>& params, const std::vector<Vec>& grads)
{
  if (params.size() != workers_ || grads.size() != workers_)
    throw std::invalid_argument("Streaming DiLoCo: " + std::to_string(params.size()) + " workers given, " +
                                std::to_string(workers_) + " expected");
  if (global_.size() == 0) {
    global_   = params[0];
    momentum_ = Vec::Zero(global_.size());
  }
  inner_adamw_steps(params, grads, inner_, h_, lr_scale_); // DiLoCo's inner optimizer
  ++steps_;
  for (std::size_t p = 0; p < fragments_.size(); ++p)
    if (sends_after(steps_, p))
      send(p, params);
  // Exchanges whose τ steps have passed: the outer step and the mixing, in the order they were sent.
  for (auto& f : in_flight_)
    if (f.due == steps_)
      apply(f, params);
  const auto applied = [&](const InFlight& f) { return f.due <= steps_; };
  in_flight_.erase(std::remove_if(in_flight_.begin(), in_flight_.end(), applied), in_flight_.end());
}

} // namespace ccsim::numerics
