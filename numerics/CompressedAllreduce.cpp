// In-memory compressed allreduce: every step of nccl.py l.51–166, with the wire bytes really packed.
#include "numerics/CompressedAllreduce.hpp"

#include "numerics/OnebitPack.hpp"

#include <algorithm>
#include <cmath>

namespace ccsim::numerics {

CompressedAllreduce::CompressedAllreduce(std::size_t numel, std::size_t workers, const CompressionKernels& kernels,
                                         PaddingTail tail)
    : layout_(numel, workers),
      kernels_(&kernels),
      tail_(tail),
      worker_compensated_(workers, std::vector<float>(layout_.padded_numel(), 0.0f)),
      server_compensated_(workers, std::vector<float>(layout_.chunk_numel(), 0.0f)),
      worker_bits_(workers, std::vector<std::uint8_t>(layout_.padded_numel() / 8)),
      worker_scale_(workers, 0.0f),
      server_scale_(workers, 0.0f),
      server_bits_(workers, std::vector<std::uint8_t>(layout_.chunk_numel() / 8)),
      padded_(layout_.padded_numel()),
      result_(layout_.padded_numel(), 0.0f) // PREVIOUS_OUTPUT's tail before the first call
{
}

std::vector<float> CompressedAllreduce::worker_error(std::size_t w) const
{
  std::vector<float> e(worker_compensated_[w].size());
  feedback_error(worker_compensated_[w].data(), worker_scale_[w], e.size(), e.data());
  return e;
}

std::vector<float> CompressedAllreduce::server_error(std::size_t r) const
{
  std::vector<float> e(server_compensated_[r].size());
  feedback_error(server_compensated_[r].data(), server_scale_[r], e.size(), e.data());
  return e;
}

void CompressedAllreduce::run(std::vector<float*>& buffers)
{
  const std::size_t W = layout_.workers(), N = layout_.padded_numel(), C = layout_.chunk_numel();
  const std::size_t numel = layout_.numel();
  // Phase 1, worker side: pad (before the error is added, so the tail carries error), compress. The tail is zeros
  // or the last output, which every worker holds alike (PaddingTail in the header says whose choice each is).
  const auto tail = static_cast<long>(numel);
  for (std::size_t w = 0; w < W; ++w) {
    std::copy(buffers[w], buffers[w] + numel, padded_.begin());
    if (tail_ == PaddingTail::ZEROS)
      std::fill(padded_.begin() + tail, padded_.end(), 0.0f);
    else
      std::copy(result_.begin() + tail, result_.end(), padded_.begin() + tail);
    worker_scale_[w] = kernels_->compress_compensated(padded_.data(), worker_compensated_[w].data(), worker_scale_[w],
                                                      N, worker_bits_[w].data());
  }
  // Server r receives byte chunk r of every worker (alltoall) and every worker's scale (allgather),
  // averages sum_i sign_i * scale_i / W in rank order (nccl.py l.108–110) and compresses with its own error
  // (l.111–114), in one pass (numerics::compress_average).
  std::vector<float> scaled(W);
  for (std::size_t w = 0; w < W; ++w)
    scaled[w] = worker_scale_[w] / static_cast<float>(W);
  std::vector<const std::uint8_t*> chunks(W);
  for (std::size_t r = 0; r < W; ++r) {
    for (std::size_t w = 0; w < W; ++w)
      chunks[w] = worker_bits_[w].data() + r * C / 8;
    server_scale_[r] = kernels_->compress_average(chunks.data(), scaled.data(), W, server_compensated_[r].data(),
                                                  server_scale_[r], C, server_bits_[r].data());
  }
  // Phase 2: allgather of server signs and scales; every worker decompresses the same result (l.157–164), straight
  // into its buffer. A chunk that reaches into the padding goes through result_, whose tail PREVIOUS_OUTPUT keeps.
  for (std::size_t r = 0; r < W; ++r) {
    const std::size_t begin = r * C;
    if (begin + C <= numel) {
      for (std::size_t w = 0; w < W; ++w)
        kernels_->unpack_signs(server_bits_[r].data(), C, server_scale_[r], buffers[w] + begin);
      continue;
    }
    kernels_->unpack_signs(server_bits_[r].data(), C, server_scale_[r], result_.data() + begin);
    for (std::size_t w = 0; w < W && begin < numel; ++w)
      std::copy(result_.begin() + static_cast<long>(begin), result_.begin() + tail, buffers[w] + begin);
  }
  // Bytes from the real buffers: worker 0's view (all workers send the same amounts).
  const std::uint64_t peers = W - 1;
  bytes_sent_ += worker_bits_[0].size() / W * peers + sizeof(float) * peers   // phase 1: sign chunks + scale
                 + server_bits_[0].size() * peers + sizeof(float) * peers;   // phase 2: server chunk + scale
}

} // namespace ccsim::numerics
