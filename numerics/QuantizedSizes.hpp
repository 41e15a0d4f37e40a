#pragma once
// Bytes on the wire of the group and channel quantizers (SDP4Bit, ZeRO++, AQ-SGD), shared by the
// quantizers and by the algorithms' communication plans.

#include <cstddef>
#include <cstdint>

namespace ccsim::numerics {

/// Symmetric group quantization of `numel` values at `bits` with one fp32 scale per `group` values
/// (SDP4Bit tools/jet_quant_cuda: codes ±(2^(b-1)-1), stored param 1/scale in fp32; notes §7.1).
std::uint64_t group_quantized_bytes(std::size_t numel, int bits, std::size_t group);

/// AQ-SGD activation message: [micro_batch, seq, hidden] values at `bits` (dense bit stream,
/// compress_flexible_nbits) plus one fp16 scale per hidden channel (compress/fixpoint.py: scale dims (0,1)).
std::uint64_t channel_quantized_bytes(std::size_t rows, std::size_t channels, int bits);

} // namespace ccsim::numerics
