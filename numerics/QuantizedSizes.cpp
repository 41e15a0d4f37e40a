// Byte counts of quantized messages.
#include "numerics/QuantizedSizes.hpp"

namespace ccsim::numerics {

std::uint64_t group_quantized_bytes(std::size_t numel, int bits, std::size_t group)
{
  const std::uint64_t codes  = (static_cast<std::uint64_t>(numel) * bits + 7) / 8;
  const std::uint64_t groups = (numel + group - 1) / group;
  return codes + 4 * groups;
}

std::uint64_t channel_quantized_bytes(std::size_t rows, std::size_t channels, int bits)
{
  const std::uint64_t codes = (static_cast<std::uint64_t>(rows) * channels * bits + 7) / 8;
  return codes + 2 * static_cast<std::uint64_t>(channels);
}

} // namespace ccsim::numerics
