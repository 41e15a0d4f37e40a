#pragma once
// Layer-wise optimizers with compressed or sparse communication, for N in-process workers.
//   OnebitLamb  — 1-bit LAMB Algorithm 1 (adapt_ratio = true), with DeepSpeed lamb.py's choices where the paper
//                 is silent (notes §4); adapt_ratio = false is "LAMB + basic 1-bit" (§3.4, A.4): c frozen too.
//                 As in lamb.py: with weight decay the coefficient ratio is blended towards 1 by the decay's share
//                 of the update (l.354–357), and the fused momentum's padding slots keep the previous compressed
//                 output (PaddingTail::PREVIOUS_OUTPUT, numerics/CompressedAllreduce.hpp).
//                 One difference remains, by design: DeepSpeed's first step() only initialises (lamb.py l.374–377,
//                 adam.py l.241–245 for 1-bit Adam) and ignores its gradient, yet counts towards freeze_step, so it
//                 makes freeze_step - 1 warm-up updates; ccsim uses every gradient and makes freeze_step of them.
//                 Both compress from call freeze_step + 1 on. To replay a DeepSpeed run, drop its first gradient and
//                 pass freeze_step - 1.
//   Slamb       — SLAMB Algorithm 1 with the reference implementation's per-element blending (notes §6).
//   SparseLamb  — top-k or shared random-k sparsified gradients with error feedback, then LAMB.
// Each takes the kernel set its compression runs on (numerics/CompressionKernels.hpp; the CPU's by default), a
// static set or one that outlives the optimizer.

#include "numerics/CompressedAllreduce.hpp"
#include "numerics/CompressionKernels.hpp"
#include "numerics/OptimizerTypes.hpp"

namespace ccsim::numerics {

class OnebitLamb : public DistributedOptimizer {
public:
  OnebitLamb(TensorLayout layout, std::size_t n, std::size_t workers, const Hyper& h, bool adapt_ratio,
             const CompressionKernels& kernels = cpu_kernels());
  void step(std::vector<Vec>& params, const std::vector<Vec>& grads) override;
  std::string phase() const override { return steps_ < freeze_ ? "warmup" : "compressed"; }
  const std::vector<double>& c_avg() const { return c_avg_; }
  const std::vector<double>& ratios() const { return last_factor_; }
  const CompressedAllreduce& allreduce() const { return ar_; }

private:
  TensorLayout layout_;
  std::size_t n_, workers_;
  Hyper h_;
  bool adapt_;
  std::vector<AdamState> state_;
  std::vector<Vec> v_fresh_;
  CompressedAllreduce ar_;
  long freeze_;
  long steps_ = 0;
  std::vector<double> c_avg_, last_factor_;
  std::vector<float> scaling_;
  std::uint64_t warm_bytes_ = 0;
  Vec mask_; // the momentum mask (numerics/MomentumMask.hpp); empty = none
};

class Slamb : public DistributedOptimizer {
public:
  Slamb(TensorLayout layout, std::size_t n, std::size_t workers, const Hyper& h,
        const CompressionKernels& kernels = cpu_kernels());
  void step(std::vector<Vec>& params, const std::vector<Vec>& grads) override;
  std::string phase() const override { return steps_ % static_cast<long>(h_.count("H") ? h_.at("H") : 100) == 0 ? "sync" : "sparse"; }

private:
  TensorLayout layout_;
  std::size_t n_, workers_;
  Hyper h_;
  const CompressionKernels* kernels_;
  std::vector<AdamState> state_;
  std::vector<Vec> staleness_;
  long steps_ = 0;
};

class SparseLamb : public DistributedOptimizer {
public:
  SparseLamb(TensorLayout layout, std::size_t n, std::size_t workers, const Hyper& h, bool top_k,
             const CompressionKernels& kernels = cpu_kernels());
  void step(std::vector<Vec>& params, const std::vector<Vec>& grads) override;
  std::string phase() const override { return "sparse"; }

private:
  TensorLayout layout_;
  std::size_t n_, workers_;
  Hyper h_;
  bool top_k_;
  const CompressionKernels* kernels_;
  std::vector<AdamState> state_;
  std::vector<Vec> error_;
  long steps_ = 0;
};

} // namespace ccsim::numerics
