#pragma once
// Sizes of DeepSpeed's 1-bit compressed allreduce (docs/design/notes/reference-implementations.md §1.2–1.4), used by
// both the in-memory CompressedAllreduce and the simulator, so the bytes simulated are the bytes packed.

#include <cstddef>
#include <cstdint>

namespace ccsim::numerics {

class OnebitLayout {
public:
  /// `numel` elements averaged over `workers` ranks.
  OnebitLayout(std::size_t numel, std::size_t workers);

  std::size_t numel() const { return numel_; }
  std::size_t workers() const { return workers_; }
  /// Padded length: the next multiple of W·lcm(W, 8) (fp16/onebit/adam.py l.110, l.176–179), so the sign bytes
  /// split evenly across ranks and every server chunk is a whole number of bytes.
  std::size_t padded_numel() const { return padded_; }
  /// Elements each rank serves (its chunk of the padded buffer).
  std::size_t chunk_numel() const { return padded_ / workers_; }
  /// Phase 1, per rank: the packed signs of its whole padded buffer, N/8 bytes, sent N/(8W) to every rank
  /// (all_to_all_single) — the ALL_TO_ALL's `bytes` in sim/model/CommPlan.hpp terms.
  std::uint64_t alltoall_bytes() const { return padded_ / 8; }
  /// Phase 2, per rank: the all-gathered server signs, N/8 bytes in all (N/(8W) contributed by each rank).
  std::uint64_t allgather_bytes() const { return padded_ / 8; }
  /// The fp32 scales all-gathered in each phase: one per rank.
  std::uint64_t scales_bytes() const { return 4 * workers_; }
  /// Everything one rank puts on the wire per call: (N/8)(W-1)/W twice, plus the scales it sends.
  std::uint64_t wire_bytes_per_worker() const;

  /// The fp32 buffer the compress kernel reads: 4·N bytes (padding included, it carries error feedback).
  std::uint64_t input_bytes() const { return 4 * static_cast<std::uint64_t>(padded_); }
  /// Phase 1 contribution of one worker, as nccl.py l.96–98 puts it on the wire: its packed sign buffer of N/8
  /// bytes (all_to_all_single, N/(8W) to each rank, its own chunk included) plus its fp32 worker scale
  /// (all_gather). The collective decides how much of it crosses links.
  std::uint64_t worker_bytes() const { return alltoall_bytes() + 4; }
  /// Phase 2 contribution of one worker acting as server (nccl.py l.146–147): the packed signs of its chunk,
  /// N/(8W) bytes, plus its fp32 server scale; every rank all-gathers W of them.
  std::uint64_t server_bytes() const { return padded_ / 8 / workers_ + 4; }

private:
  std::size_t numel_;
  std::size_t workers_;
  std::size_t padded_;
};

} // namespace ccsim::numerics
