#pragma once
// PowerSGD (Vogels et al. 2019, Algorithm 1 with error feedback, §3) as PyTorch ships it: the DDP communication hook
// torch/distributed/algorithms/ddp_comm_hooks/powerSGD_hook.py (powerSGD_hook, PowerSGDState). Per step and worker w:
//   M_w = g_w + e_w                                  (error feedback over the whole gradient)
//   every tensor whose rank-r factors are worth it   (_should_compress: (n + m)·r·min_compression_rate < n·m, the
//   (n x m, its memory read row-major):               tensor viewed as shape[0] x rest)
//     P = orth(sum_w M_w Q)                          (Gram-Schmidt; Q warm-started from the last step, orthogonalised)
//     Q = (1/W) sum_w M_wᵀ P                         (two fp32 all-reduces: every P, then every Q)
//     reduced gradient = P Qᵀ
//   every other tensor (vectors, small matrices): the plain average, in a third all-reduce
//   e_w = M_w - reduced gradient                     (for the uncompressed tensors too: M_w minus the average)
// The first `start_iter` steps are plain averages (the hook's start_powerSGD_iter) with no error kept. The Q of the
// first compressed step is random, the same on every worker (the hook seeds torch.randn from its own numpy RNG; here
// std::normal_distribution on std::mt19937_64 from `seed`, so the draws differ from torch's, and start_from() replays
// a reference run's draws). Products and norms use the fixed-order kernels (numerics/FixedOrder.hpp).

#include "numerics/OptimizerTypes.hpp"
#include "numerics/Optimizers.hpp"

#include <Eigen/Core>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ccsim::numerics {

/// The hook's PowerSGDState knobs that change the numbers.
struct PowerSgdSettings {
  int rank                    = 2; // matrix_approximation_rank; Vogels et al. train ResNet-18 at rank 2 (Table 3)
  double min_compression_rate = 2; // the hook's default
  long start_iter             = 0; // plain all-reduces first (start_powerSGD_iter; the paper compresses from step 1)
  std::uint64_t seed          = 0; // of the first Q (the hook's random_seed)
  bool error_feedback         = true;
  bool warm_start             = true; // reuse last step's Q (Vogels et al. §3, "warm start")
};

/// One compressed tensor of the layout: its matrix view and the rank of its factors.
struct LowRankTensor {
  std::size_t tensor; // index into the layout
  std::size_t offset, n, m, rank;
};

/// The low-rank all-reduce of W in-process workers' gradients.
class PowerSgd {
public:
  /// Its products M·Q, Mᵀ·P and P·Qᵀ run on `kernels` (a static set: cpu_kernels(), or the CUDA one).
  PowerSgd(const TensorLayout& layout, std::size_t workers, PowerSgdSettings settings,
           const CompressionKernels& kernels = cpu_kernels());

  /// grads[w] -> `reduced`, the gradient every worker applies (the same for all); the error buffers are updated.
  void reduce(const std::vector<Vec>& grads, Vec& reduced);

  /// Whether the next reduce() compresses (false during the first start_iter steps).
  bool compressing() const { return steps_ >= s_.start_iter; }
  /// The Qs (m x rank, one per compressed tensor, layout order) the first compressed step orthogonalises instead of
  /// drawing its own: a reference run's draws, for parity tests.
  void start_from(std::vector<Eigen::MatrixXf> qs);

  const std::vector<LowRankTensor>& compressed() const { return low_rank_; }
  /// Values one compressed step all-reduces: every P, every Q, and the uncompressed tensors.
  std::size_t p_elements() const { return p_elements_; }
  std::size_t q_elements() const { return q_elements_; }
  std::size_t uncompressed_elements() const { return uncompressed_elements_; }
  /// Bytes one worker has put on the wire so far (fp32 ring all-reduces).
  std::uint64_t bytes_sent_per_worker() const { return bytes_; }
  /// Worker w's error-feedback buffer (empty before the first compressed step).
  const Vec& error(std::size_t w) const { return errors_.at(w); }

private:
  void draw_initial_qs();

  PowerSgdSettings s_;
  const CompressionKernels* kernels_;
  std::size_t workers_, n_;
  std::vector<LowRankTensor> low_rank_;
  std::vector<std::size_t> plain_; // indices of the uncompressed tensors
  std::vector<TensorSlice> layout_;
  std::size_t p_elements_ = 0, q_elements_ = 0, uncompressed_elements_ = 0;
  std::vector<Eigen::MatrixXf> qs_; // column-major m x rank, kept between steps (warm start)
  bool have_qs_  = false;
  bool replayed_ = false; // start_from() gave the next compressed step's Qs
  long steps_    = 0;
  long draws_    = 0;
  std::uint64_t bytes_ = 0;
  std::vector<Vec> errors_;
};

/// Orthonormalises the columns of `a` (rows x cols, cols <= rows) in place by Gram-Schmidt, as the hook's
/// _orthogonalize_gram_schmidt with epsilon 0: each column divided by its norm (a zero column stays zero), then
/// projected out of the columns after it. The hook takes torch.linalg.qr for rank > 2; both give the same columns up
/// to sign, and a sign flips P and Q together, so P Qᵀ does not change.
void orthogonalise_columns(Eigen::MatrixXf& a);

/// The hook's settings from `ccsim train` hyper-parameters "rank" and "start_iter" (the defaults above where absent).
PowerSgdSettings powersgd_settings(const Hyper& h);

/// Data parallelism whose gradients go through PowerSGD: the DDP hook under an optimizer, as a torch script registers
/// it (`kind`: DenseOptimizer's "adam" or "sgd"). Its phase is "warmup" for the plain all-reduces, then "compressed".
class PowerSgdOptimizer : public DenseOptimizer {
public:
  PowerSgdOptimizer(std::string kind, const TensorLayout& layout, std::size_t workers, const Hyper& h,
                    const CompressionKernels& kernels = cpu_kernels());
  void step(std::vector<Vec>& params, const std::vector<Vec>& grads) override;
  std::uint64_t bytes_sent_per_worker() const override { return reducer_.bytes_sent_per_worker(); }
  std::string phase() const override { return reducer_.compressing() ? "compressed" : "warmup"; }
  const PowerSgd& reducer() const { return reducer_; }

private:
  PowerSgd reducer_;
};

} // namespace ccsim::numerics
