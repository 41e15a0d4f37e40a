// Padding and byte counts of the 1-bit compressed allreduce.
#include "numerics/OnebitLayout.hpp"

#include <cassert>
#include <numeric>

namespace ccsim::numerics {

OnebitLayout::OnebitLayout(std::size_t numel, std::size_t workers) : numel_(numel), workers_(workers)
{
  assert(workers >= 1);
  const std::size_t divider = workers_ * std::lcm(workers_, std::size_t{8});
  padded_                   = (numel_ + divider - 1) / divider * divider;
}

std::uint64_t OnebitLayout::wire_bytes_per_worker() const
{
  const std::uint64_t w = workers_;
  // Each phase ships the N/8 packed bytes minus the share a rank keeps for itself, and one fp32 scale to each peer.
  return 2 * (alltoall_bytes() * (w - 1) / w) + 2 * 4 * (w - 1);
}

} // namespace ccsim::numerics
