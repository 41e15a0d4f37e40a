#pragma once
// Test helper: each compressor of numerics/ run on fixed random inputs through a given kernel set, its outputs
// flattened into one vector. Two kernel sets that implement the same kernels must give equal vectors: the CPU
// tests compare a recording set with the CPU's, the CUDA tests the GPU's with the CPU's.

#include "numerics/DeltaBuffers.hpp"
#include "numerics/CompressedAllreduce.hpp"
#include "numerics/CompressionKernels.hpp"
#include "numerics/TwoLevelQuantizer.hpp"
#include "numerics/WeightDiffQuantizer.hpp"

#include <random>
#include <vector>

namespace ccsim::test {

inline std::vector<float> normal_vector(std::size_t n, unsigned seed, float stddev = 1.0f)
{
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, stddev);
  std::vector<float> x(n);
  for (auto& v : x)
    v = d(rng);
  return x;
}

/// 1-bit compressed allreduce: 4 workers x 1000 values, 3 calls (the error feedback carries over); every worker's
/// buffer after every call.
inline std::vector<float> run_compressed_allreduce(const numerics::CompressionKernels& kernels)
{
  numerics::CompressedAllreduce ar(1000, 4, kernels);
  std::vector<float> out;
  for (unsigned call = 0; call < 3; ++call) {
    std::vector<std::vector<float>> x;
    std::vector<float*> buffers;
    for (unsigned w = 0; w < 4; ++w)
      x.push_back(normal_vector(1000, 10 * call + w));
    for (auto& v : x)
      buffers.push_back(v.data());
    ar.run(buffers);
    for (const auto& v : x)
      out.insert(out.end(), v.begin(), v.end());
  }
  return out;
}

/// SDP4Bit's two-level reduce-scatter with `config` (2 nodes x 2 GPUs), 2 steps: every rank's shard each step.
inline std::vector<float> run_two_level(const numerics::TwoLevelConfig& config,
                                        const numerics::CompressionKernels& kernels)
{
  numerics::TwoLevelQuantizer q(1000, config, /*seed=*/5, kernels);
  std::vector<float> out;
  for (unsigned step = 0; step < 2; ++step) {
    std::vector<std::vector<float>> g;
    std::vector<const float*> in;
    for (unsigned r = 0; r < q.workers(); ++r)
      g.push_back(normal_vector(1000, 100 + 10 * step + r));
    for (const auto& v : g)
      in.push_back(v.data());
    std::vector<std::vector<float>> shards;
    q.reduce_scatter(in, shards, step);
    for (const auto& s : shards)
      out.insert(out.end(), s.begin(), s.end());
  }
  return out;
}

/// qWD: 3 steps of encode + apply on a bf16 model copy following drifting weights, then qW of the last weights.
inline std::vector<float> run_weight_diff(const numerics::CompressionKernels& kernels)
{
  const std::size_t n = 5000; // three groups of 2048, the last one partial
  const numerics::WeightDiffQuantizer q({}, /*seed=*/7, kernels);
  auto w    = normal_vector(n, 20);
  auto copy = w;
  numerics::round_to_bf16(copy.data(), n);
  std::vector<float> out;
  for (unsigned step = 0; step < 3; ++step) {
    const auto drift = normal_vector(n, 30 + step, 0.01f);
    for (std::size_t i = 0; i < n; ++i)
      w[i] += drift[i];
    q.apply(q.encode(w.data(), copy.data(), n, step), copy.data());
    out.insert(out.end(), copy.begin(), copy.end());
  }
  std::vector<float> qw(n);
  numerics::quantize_weights(w.data(), n, 4, 2048, numerics::Rounding::STOCHASTIC, 3, qw.data(), kernels);
  out.insert(out.end(), qw.begin(), qw.end());
  return out;
}

/// DirectQ of one activation, then AQ-SGD: 3 sends of one example through sender and receiver buffers (the first
/// in full precision, the next two as quantized deltas); what the receiver reconstructs each time.
inline std::vector<float> run_activations(const numerics::CompressionKernels& kernels)
{
  const std::size_t rows = 16, channels = 24;
  std::vector<float> out(rows * channels);
  numerics::direct_quantize(normal_vector(rows * channels, 40).data(), rows, channels, 2, out.data(), kernels);
  numerics::DeltaBuffers sender(rows, channels, 2, kernels), receiver(rows, channels, 2, kernels);
  auto a = normal_vector(rows * channels, 41);
  for (unsigned send = 0; send < 3; ++send) {
    const auto drift = normal_vector(rows * channels, 50 + send, 0.1f);
    for (std::size_t i = 0; i < a.size(); ++i)
      a[i] += drift[i];
    const auto& got = receiver.decode(/*example=*/3, sender.encode(/*example=*/3, a.data()));
    out.insert(out.end(), got.begin(), got.end());
  }
  return out;
}

} // namespace ccsim::test
