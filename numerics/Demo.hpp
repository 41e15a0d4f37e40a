#pragma once
// DeMo (Peng, Quesnelle and Kingma 2024, "DeMo: Decoupled Momentum Optimization", Algorithm 1) as its reference
// optimizer runs it (github bloc97/DeMo, demo.py, class DeMo). Per step, tensor and worker w, with the group's lr:
//   θ_w ← θ_w·(1 - lr·wd)                     (weight decay first; the paper's runs use wd = 0)
//   δ_w ← β·δ_w + lr·g_w                       (β = compression_decay, 0.999: the momentum is never all-reduced)
//   q_w = top-k per chunk of DCT(δ_w)          (orthonormal DCT-II over chunks of 64 or 64 x 64, k = 32 by |value|)
//   δ_w ← δ_w - IDCT(q_w)                      (what was sent leaves the momentum: its "fast components")
//   Q   = per coefficient, the mean of the values the workers sent there (all-gather of values and int64 indices, then
//         torch scatter_reduce "mean" with include_self=False: a coefficient two of W workers chose is their mean,
//         not a W-th of their sum)
//   θ_w ← θ_w - lr·sign(IDCT(Q))               (signSGD on the decoded global update; the same on every worker)
// Chunks: a dimension of size n is cut into pieces of its largest divisor <= 64 (n itself when n <= 64; demo.py's
// _get_smaller_split); a matrix (rows > 0 in the layout, read row-major as torch's 2-D tensor) into blocks of those in
// both dimensions, whose 2-D coefficients are ranked together; a vector into pieces. k is capped at a chunk's size.
// Sums are in fixed order (numerics/FixedOrder.hpp). Top-k ties go to the lower coefficient index (torch.topk leaves
// them unspecified; the parity fixtures have none).

#include "numerics/CompressionKernels.hpp"
#include "numerics/OptimizerTypes.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ccsim::numerics {

struct DemoSettings {
  double decay = 0.999; // compression_decay (demo.py's default and the paper's OLMo runs)
  long topk    = 32;    // compression_topk
  long chunk   = 64;    // compression_chunk
};

/// The settings from `ccsim train` hyper-parameters "compression_decay", "topk" and "chunk".
DemoSettings demo_settings(const Hyper& h);

/// demo.py's _get_smaller_split(n, target): the largest divisor of n that is <= target, or n when n <= target.
std::size_t demo_chunk_size(std::size_t n, std::size_t target);

/// The orthonormal DCT-II matrix of size c, row-major: row k is basis vector k, C[k][i] = s_k·cos(π(2i + 1)k / 2c)
/// with s_0 = sqrt(1/c), s_k = sqrt(2/c) (torch-dct's _dct with norm="ortho"); its transpose is the inverse.
std::vector<float> dct_matrix(std::size_t c);

/// One tensor of the layout cut into DCT chunks.
struct DemoTensor {
  std::size_t offset, rows, cols; // a vector is 1 x size
  std::size_t chunk_rows, chunk_cols; // 1 x c for a vector
  std::size_t topk;                   // per chunk, capped at its coefficients
  std::size_t chunks() const { return (rows / chunk_rows) * (cols / chunk_cols); }
  std::size_t coefficients() const { return chunk_rows * chunk_cols; }
};

/// The chunking of every tensor of `layout` (a layout without tensors is one vector of `total` elements).
std::vector<DemoTensor> demo_tensors(const TensorLayout& layout, std::size_t total, const DemoSettings& s);

/// Values one worker sends per step: its top-k coefficients (one value and one int64 index each).
std::size_t demo_sent_coefficients(const std::vector<DemoTensor>& tensors);

class Demo : public DistributedOptimizer {
public:
  /// Its DCT products run on `kernels` (a static set: cpu_kernels(), or the CUDA one); the top-k stays on the host.
  Demo(const TensorLayout& layout, std::size_t workers, const Hyper& h,
       const CompressionKernels& kernels = cpu_kernels());
  void step(std::vector<Vec>& params, const std::vector<Vec>& grads) override;
  std::string phase() const override { return "compressed"; }
  /// Worker w's momentum δ_w (empty before the first step).
  const Vec& momentum(std::size_t w) const { return deltas_.at(w); }
  /// The decoded global update of the last step, before its sign.
  const Vec& last_update() const { return update_; }
  const std::vector<DemoTensor>& tensors() const { return tensors_; }

private:
  struct Sparse { // one worker's top-k of every chunk, in tensor and chunk order, indices ascending within a chunk
    std::vector<std::uint32_t> index;
    std::vector<float> value;
  };
  void compress(std::size_t w, Sparse& out);
  void decode_global(const std::vector<Sparse>& sent);
  const std::vector<float>& basis(std::size_t c) const;

  const CompressionKernels* kernels_;
  std::size_t workers_;
  Hyper h_;
  DemoSettings s_;
  TensorLayout layout_;
  std::vector<DemoTensor> tensors_;
  std::vector<std::vector<float>> bases_; // dct_matrix(c) for every c in use, indexed by c
  std::vector<Vec> deltas_;
  Vec update_;
};

} // namespace ccsim::numerics
