#pragma once
// The 1-bit compressed allreduce of 1-bit Adam / 1-bit LAMB over N in-process workers, exactly as DeepSpeed's
// NcclBackend.compressed_allreduce (docs/design/notes/reference-implementations.md §1.2): worker error feedback and
// signs -> chunk r to rank r (alltoall) -> server average of the decompressed chunks + server error feedback
// -> allgather of server signs and scales. The bytes "sent" are the packed buffers themselves. Each error is kept
// as the last compensated vector and its scale (numerics/OnebitPack.hpp, issue 49): the same numbers, one pass.

#include "numerics/CompressionKernels.hpp"
#include "numerics/OnebitLayout.hpp"

#include <cstdint>
#include <vector>

namespace ccsim::numerics {

/// What the padding slots (numel .. padded_numel, OnebitLayout) of each call's input hold. The slots carry error
/// feedback either way; what differs is the value the error is added to, so the two choices give different scales
/// and signs — and different trajectories — whenever numel is not a multiple of W·lcm(W, 8). Each follows the
/// DeepSpeed optimizer it serves, so ccsim's trajectories can be compared with DeepSpeed's step by step.
enum class PaddingTail {
  /// A fresh zero tail every call. DeepSpeed's 1-bit Adam: nccl.py compressed_allreduce l.65–67 pads a new
  /// torch.cat copy of the momentum with zeros, and l.165–166 returns the unpadded slice (adam.py l.211 keeps it).
  ZEROS,
  /// The previous call's decompressed output (zeros before the first call). DeepSpeed's 1-bit LAMB: lamb.py
  /// l.264–284 fuses every momentum and a zero "dummy_exp_avg" of the padding length into one flat buffer of the
  /// padded length, which l.315–316 hands to nccl.py to reduce in place (no padding copy: the sizes already match,
  /// l.65) and overwrite whole (l.161). Nothing else writes the dummy slots (the momentum update, scaling and
  /// unscaling touch the parameters' momenta only), so each call starts from the last call's output there.
  /// DeepSpeed's initialisation step reduces the all-zero buffer once with throw-away errors (l.294–313), which
  /// leaves zeros. Line numbers are of deepspeedai/DeepSpeed at edaa722.
  PREVIOUS_OUTPUT,
};

class CompressedAllreduce {
public:
  /// The compress / accumulate / unpack kernels run on `kernels` (a static set, or one that outlives this object).
  CompressedAllreduce(std::size_t numel, std::size_t workers, const CompressionKernels& kernels = cpu_kernels(),
                      PaddingTail tail = PaddingTail::ZEROS);

  /// buffers[w] (numel values each) are replaced by the same compressed average. Error state persists.
  void run(std::vector<float*>& buffers);

  const OnebitLayout& layout() const { return layout_; }
  PaddingTail padding_tail() const { return tail_; }
  /// The error feedback worker w and server r carry into the next call (e = c - s·sign(c), rebuilt).
  std::vector<float> worker_error(std::size_t w) const;
  std::vector<float> server_error(std::size_t r) const;
  /// Bytes one worker has put on the wire so far, counted from the packed buffers themselves: the chunks of its
  /// sign buffer and its scale sent to the W-1 other ranks (phase 1), then its server chunk and server scale sent
  /// to the W-1 others (phase 2). Equals layout().wire_bytes_per_worker() per call.
  std::uint64_t bytes_sent_per_worker() const { return bytes_sent_; }
  const std::vector<std::uint8_t>& server_bits(std::size_t r) const { return server_bits_[r]; }
  /// The last call's packed worker signs of worker w (padded/8 bytes) and its scale.
  const std::vector<std::uint8_t>& worker_bits(std::size_t w) const { return worker_bits_[w]; }
  float worker_scale(std::size_t w) const { return worker_scale_[w]; }
  float server_scale(std::size_t r) const { return server_scale_[r]; }

private:
  OnebitLayout layout_;
  const CompressionKernels* kernels_;
  PaddingTail tail_;
  // The error-feedback state: each worker's and server's last compensated vector, with the scales below (the last
  // call's; 0 before the first, when the vectors are 0 too: no error yet). fp32; the padding tail carries error too
  // (§1.4).
  std::vector<std::vector<float>> worker_compensated_; // padded length each
  std::vector<std::vector<float>> server_compensated_; // chunk length each
  std::vector<std::vector<std::uint8_t>> worker_bits_;
  std::vector<float> worker_scale_;
  std::vector<float> server_scale_;
  std::vector<std::vector<std::uint8_t>> server_bits_; // chunk/8 bytes each
  std::vector<float> padded_;                          // scratch: one worker's padded input
  std::vector<float> result_; // the decompressed chunks that reach into the padding (their tail is kept)
  std::uint64_t bytes_sent_ = 0;
};

} // namespace ccsim::numerics
