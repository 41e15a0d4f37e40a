// qWD and qW on top of the packed group quantizer.
#include "numerics/WeightDiffQuantizer.hpp"

#include "numerics/Rounding.hpp"

#include <vector>

namespace ccsim::numerics {

PackedQuantized quantize_packed(const float* x, std::size_t n, int bits, std::size_t group, Rounding rounding,
                                std::uint64_t seed, const CompressionKernels& kernels)
{
  PackedQuantized q;
  q.bits  = bits;
  q.group = group;
  q.numel = n;
  q.codes.resize(packed_code_bytes(n, bits));
  q.scales.resize((n + group - 1) / group);
  kernels.quantize_groups_packed(x, n, bits, group, rounding, seed, q.codes.data(), q.scales.data(), /*first_index=*/0);
  return q;
}

void dequantize_packed(const PackedQuantized& q, float* out, const CompressionKernels& kernels)
{
  kernels.dequantize_groups_packed(q.codes.data(), q.scales.data(), q.numel, q.bits, q.group, out);
}

void round_to_bf16(float* x, std::size_t n)
{
  for (std::size_t i = 0; i < n; ++i)
    x[i] = round_to_bf16(x[i]);
}

PackedQuantized WeightDiffQuantizer::encode(const float* new_weights, const float* model_copy, std::size_t n,
                                            std::uint64_t step) const
{
  std::vector<float> diff(n);
  for (std::size_t i = 0; i < n; ++i)
    diff[i] = config_.bf16_copy ? round_to_bf16(round_to_bf16(new_weights[i]) - model_copy[i])
                                : new_weights[i] - model_copy[i];
  return quantize_packed(diff.data(), n, config_.bits, config_.group, config_.rounding, derive_seed(seed_, step),
                         *kernels_);
}

void WeightDiffQuantizer::apply(const PackedQuantized& message, float* model_copy) const
{
  std::vector<float> diff(message.numel);
  dequantize_packed(message, diff.data(), *kernels_);
  for (std::size_t i = 0; i < message.numel; ++i)
    model_copy[i] = config_.bf16_copy ? round_to_bf16(model_copy[i] + round_to_bf16(diff[i])) : model_copy[i] + diff[i];
}

void quantize_weights(const float* w, std::size_t n, int bits, std::size_t group, Rounding rounding, std::uint64_t seed,
                      float* out, const CompressionKernels& kernels)
{
  const auto q = quantize_packed(w, n, bits, group, rounding, seed, kernels);
  dequantize_packed(q, out, kernels);
}

} // namespace ccsim::numerics
