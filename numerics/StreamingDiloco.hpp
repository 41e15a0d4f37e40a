#pragma once
// Streaming DiLoCo (Douillard et al. 2025, Algorithm 2): DiLoCo whose model is cut into P fragments of transformer
// blocks taken strided (block k in fragment k mod P, §2.2 and Fig. 2), each synchronised every H steps at its own
// offset t_p = p·H/P, so that only 1/P of the model is in flight at once. Fragment p, after inner step t = t_p + kH
// (k >= 1):
//   each worker sends q(θ_p - θ_{w,p}), its outer gradient in 4-bit E3M0 (§2.4, numerics/Fp4.hpp), and the mean is
//   accumulated in fp32;
//   the exchange overlaps the next τ inner steps (§2.3); after step t + τ the outer Nesterov step gives the new global
//   fragment θ̃_p, and each worker mixes it into the fragment it has moved on with (Algorithm 2, line 12):
//   θ_{w,p} = α·θ_{w,p} + (1 - α)·θ̃_p.
// With P = 1, τ = 0, α = 0 and fp32 values it is DiLoCo (numerics/Diloco.hpp), which the tests check.

#include "numerics/CompressionKernels.hpp"
#include "numerics/OptimizerTypes.hpp"

#include <cstddef>
#include <vector>

namespace ccsim::numerics {

struct StreamingDilocoSettings {
  long inner_steps      = 100;  // H: the paper's Dolma runs and its simulations (§3)
  long fragments        = 0;    // P; 0: the paper's fragments of 3 transformer blocks (§3.3.1), at least one
  long overlap_steps    = 1;    // τ: "In our main experiments, we used 1 step" (§3.3.2)
  double mixing         = 0.5;  // α: Fig. 10's uniform average (the main runs' value is not stated)
  double outer_lr       = 0.4;  // §3.2, kept at every scale
  double outer_momentum = 0.9;  // DiLoCo's (the paper does not restate it)
  bool fp4              = true; // E3M0 outer gradients (false: fp32)
};

/// The settings from `ccsim train` hyper-parameters "inner_steps", "fragments", "overlap_steps", "mixing",
/// "outer_lr", "outer_momentum" and "outer_bits" (4 or 32).
StreamingDilocoSettings streaming_diloco_settings(const Hyper& h);

/// P for a model of `blocks` transformer blocks: `fragments`, or ceil(blocks / 3) when it is 0 (the paper's fragments
/// of 3 blocks), between 1 and the blocks (a model without blocks is one). The plan and the update share it.
long streaming_fragment_count(long fragments, long blocks);

/// The fragments of `layout`: the tensors named "l<k>." form block k (a transformer block of the proxies), tensors
/// before the first block join it and tensors after the last join that one; a layout without blocks is one block.
/// Block k goes to fragment k mod P (strided), P = streaming_fragment_count(fragments, blocks).
/// Returns, per fragment, the indices of its tensors in layout order.
std::vector<std::vector<std::size_t>> streaming_fragments(const TensorLayout& layout, long fragments);

class StreamingDiloco : public DistributedOptimizer {
public:
  /// Its E3M0 rounding runs on `kernels` (a static set: cpu_kernels(), or the CUDA one).
  StreamingDiloco(const TensorLayout& layout, std::size_t workers, const Hyper& h,
                  const CompressionKernels& kernels = cpu_kernels());
  void step(std::vector<Vec>& params, const std::vector<Vec>& grads) override;
  /// "sync" for a step after which a fragment is sent, else "inner".
  std::string phase() const override;
  const Vec& global_params() const { return global_; }
  const std::vector<std::vector<std::size_t>>& fragments() const { return fragments_; }
  const StreamingDilocoSettings& settings() const { return s_; }

private:
  const CompressionKernels* kernels_;
  struct InFlight {
    std::size_t fragment;
    long due; // the inner step after which the outer step applies it
    Vec delta; // the mean outer gradient, over the whole vector (zero outside the fragment)
  };
  bool sends_after(long step, std::size_t fragment) const;
  void send(std::size_t fragment, const std::vector<Vec>& params);
  void apply(InFlight& f, std::vector<Vec>& params);

  TensorLayout layout_;
  std::size_t workers_;
  Hyper h_;
  StreamingDilocoSettings s_;
  std::vector<std::vector<std::size_t>> fragments_;
  std::vector<AdamState> inner_;
  Vec global_, momentum_;
  std::vector<bool> has_momentum_; // per fragment: whether its outer step ran once (torch's first-step buffer)
  std::vector<InFlight> in_flight_;
  long steps_ = 0;
};

} // namespace ccsim::numerics
