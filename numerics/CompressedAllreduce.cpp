// In-memory compressed allreduce: every step of nccl.py l.51–166, with the wire bytes really packed.
#include "numerics/CompressedAllreduce.hpp"

#include <algorithm>
#include <cmath>

namespace ccsim::numerics {

CompressedAllreduce::CompressedAllreduce(std::size_t numel, std::size_t workers, const CompressionKernels& kernels,
                                         PaddingTail tail)
    : layout_(numel, workers),
      kernels_(&kernels),
      tail_(tail),
      worker_error_(workers, std::vector<float>(layout_.padded_numel(), 0.0f)),
      server_error_(workers, std::vector<float>(layout_.chunk_numel(), 0.0f)),
      worker_bits_(workers, std::vector<std::uint8_t>(layout_.padded_numel() / 8)),
      worker_scale_(workers, 0.0f),
      server_scale_(workers, 0.0f),
      server_bits_(workers, std::vector<std::uint8_t>(layout_.chunk_numel() / 8)),
      padded_(layout_.padded_numel()),
      chunk_(layout_.chunk_numel()),
      result_(layout_.padded_numel(), 0.0f) // PREVIOUS_OUTPUT's tail before the first call
{
}

void CompressedAllreduce::run(std::vector<float*>& buffers)
{
  const std::size_t W = layout_.workers(), N = layout_.padded_numel(), C = layout_.chunk_numel();
  // Phase 1, worker side: pad (before the error is added, so the tail carries error), compress. The tail is zeros
  // or the last output, which every worker holds alike (PaddingTail in the header says whose choice each is).
  const auto tail = static_cast<long>(layout_.numel());
  for (std::size_t w = 0; w < W; ++w) {
    std::copy(buffers[w], buffers[w] + layout_.numel(), padded_.begin());
    if (tail_ == PaddingTail::ZEROS)
      std::fill(padded_.begin() + tail, padded_.end(), 0.0f);
    else
      std::copy(result_.begin() + tail, result_.end(), padded_.begin() + tail);
    worker_scale_[w] =
        kernels_->compress_with_feedback(padded_.data(), worker_error_[w].data(), N, worker_bits_[w].data());
  }
  // Server r receives byte chunk r of every worker (alltoall) and every worker's scale (allgather),
  // averages sum_i sign_i * scale_i / W in rank order (nccl.py l.108–110), then compresses with its own error
  // (l.111–114).
  for (std::size_t r = 0; r < W; ++r) {
    std::fill(chunk_.begin(), chunk_.end(), 0.0f);
    for (std::size_t w = 0; w < W; ++w)
      kernels_->accumulate_signs(worker_bits_[w].data() + r * C / 8, C, worker_scale_[w] / static_cast<float>(W),
                                 chunk_.data());
    server_scale_[r] =
        kernels_->compress_with_feedback(chunk_.data(), server_error_[r].data(), C, server_bits_[r].data());
  }
  // Phase 2: allgather of server signs and scales; every worker decompresses the same result (l.157–164).
  for (std::size_t r = 0; r < W; ++r)
    kernels_->unpack_signs(server_bits_[r].data(), C, server_scale_[r], result_.data() + r * C);
  for (std::size_t w = 0; w < W; ++w)
    std::copy(result_.begin(), result_.begin() + static_cast<long>(layout_.numel()), buffers[w]);
  // Bytes from the real buffers: worker 0's view (all workers send the same amounts).
  const std::uint64_t peers = W - 1;
  bytes_sent_ += worker_bits_[0].size() / W * peers + sizeof(float) * peers   // phase 1: sign chunks + scale
                 + server_bits_[0].size() * peers + sizeof(float) * peers;   // phase 2: server chunk + scale
}

} // namespace ccsim::numerics
