// TwoLevelQuantizer: layout and message sizes, exactness on grid-aligned data, unbiasedness of the stochastic
// pipeline, and the accuracy order ULq > TLq > TLq-HS error that motivates SDP4Bit §3.2.
#include "numerics/TwoLevelQuantizer.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

using namespace ccsim::numerics;

namespace {
std::vector<double> exact_average(const std::vector<std::vector<float>>& g, std::size_t padded)
{
  std::vector<double> avg(padded, 0.0);
  for (const auto& v : g)
    for (std::size_t i = 0; i < v.size(); ++i)
      avg[i] += v[i] / static_cast<double>(g.size());
  return avg;
}

std::vector<const float*> pointers(const std::vector<std::vector<float>>& g)
{
  std::vector<const float*> p;
  for (const auto& v : g)
    p.push_back(v.data());
  return p;
}

double relative_error(const TwoLevelConfig& c, const std::vector<std::vector<float>>& g, std::uint64_t seed)
{
  TwoLevelQuantizer q(g[0].size(), c, seed);
  std::vector<std::vector<float>> shards;
  q.reduce_scatter(pointers(g), shards);
  const auto avg = exact_average(g, q.padded_numel());
  double err = 0, norm = 0;
  for (std::size_t r = 0; r < shards.size(); ++r)
    for (std::size_t i = 0; i < q.shard_numel(); ++i) {
      const double e = shards[r][i] - avg[r * q.shard_numel() + i];
      err += e * e, norm += avg[r * q.shard_numel() + i] * avg[r * q.shard_numel() + i];
    }
  return std::sqrt(err / norm);
}
} // namespace

TEST_CASE("TwoLevelQuantizer: padding and per-worker message sizes", "[numerics]")
{
  // G = 2 nodes x g = 4: W = 8; groups 128 (and 32 for HS): unit 8·128 = 1024, so 1000 -> 1024, shard 128.
  // Intra: the whole 1024-value buffer at 8 bits + 8 fp32 scales = 1056. Inter: 1024/4 = 256 values (2 shards of
  // partial sums) at 4 bits + 2 scales = 136.
  const TwoLevelQuantizer q(1000, TwoLevelConfig::tlq_hs(2, 4));
  CHECK(q.padded_numel() == 1024);
  CHECK(q.shard_numel() == 128);
  CHECK(q.intra_bytes() == 1056);
  CHECK(q.inter_bytes() == 136);
  const TwoLevelQuantizer u(1000, TwoLevelConfig::ulq(2, 4));
  CHECK(u.intra_bytes() == 512 + 32); // 4 bits in both stages (ZeRO++ qgZ)
  CHECK(TwoLevelQuantizer(1000, TwoLevelConfig::tlq(1, 4)).inter_bytes() == 0); // one node: no inter stage
}

TEST_CASE("TwoLevelQuantizer: grid-aligned gradients are reduce-scattered exactly (TLq and ULq)", "[numerics]")
{
  // Worker r sends c_r·v with v on the 1/7 grid and max|v| = 1 in every group. Every stage then quantizes a
  // multiple of v: (c/W)·v -> codes 7v exactly; partial sums (Σ_l c_l/W)·v again; so the result is the exact
  // average (Σ c_r / W)·v up to fp32 rounding (1e-5 relative). Nearest rounding so no draw can move a code.
  const std::size_t G = 2, g = 4, W = G * g, n = 2048;
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = static_cast<float>(static_cast<int>(i % 15) - 7) / 7.0f; // -1 .. 1 in every 15 values
  std::vector<std::vector<float>> grads(W, std::vector<float>(n));
  double csum = 0;
  for (std::size_t r = 0; r < W; ++r) {
    const float c = 0.5f + static_cast<float>(r);
    csum += c;
    for (std::size_t i = 0; i < n; ++i)
      grads[r][i] = c * v[i];
  }
  for (auto config : {TwoLevelConfig::tlq(G, g), TwoLevelConfig::ulq(G, g)}) {
    config.rounding = Rounding::NEAREST;
    TwoLevelQuantizer q(n, config);
    std::vector<std::vector<float>> shards;
    q.reduce_scatter(pointers(grads), shards);
    for (std::size_t r = 0; r < W; ++r)
      for (std::size_t i = 0; i < q.shard_numel(); ++i)
        REQUIRE(shards[r][i] == Approx(csum / W * v[r * q.shard_numel() + i]).margin(1e-5));
  }
}

namespace {
/// Each stochastic rounding is unbiased and the pipeline is linear between roundings, so E[out] = average.
/// Bound on one run's error sd per element: stage 1 adds W draws of sd <= s1/2 (s1 = max|g/W| / (2^(intra_bits-1) - 1)),
/// stage 2 adds G draws of sd <= s2/2 (s2 <= g max|g/W| / (2^(inter_bits-1) - 1)); with Hadamard smoothing the max
/// after H can grow up to sqrt(32)x, and H mixes 32 such errors orthogonally, which keeps the sd bound.
/// Over 300 seeds the mean's sd is bound/sqrt(300); every element must be within 5 sd.
void check_unbiased_over_seeds(const TwoLevelConfig& cfg)
{
  const std::size_t G = cfg.nodes, g = cfg.gpus_per_node, W = G * g, n = 256, seeds = 300;
  std::mt19937 rng(13);
  std::normal_distribution<float> d;
  std::vector<std::vector<float>> grads(W, std::vector<float>(n));
  float gmax = 0;
  for (auto& v : grads)
    for (auto& e : v)
      e = d(rng), gmax = std::max(gmax, std::fabs(e));
  const double m  = gmax / static_cast<double>(W) * (cfg.hadamard ? std::sqrt(32.0) : 1.0);
  const double s1 = m / ((1 << (cfg.intra_bits - 1)) - 1);
  const double s2 = static_cast<double>(g) * m / ((1 << (cfg.inter_bits - 1)) - 1);
  const double sd = std::sqrt(static_cast<double>(W) * s1 * s1 / 4 + static_cast<double>(G) * s2 * s2 / 4);
  std::vector<double> mean(n, 0.0);
  for (std::uint64_t s = 0; s < seeds; ++s) {
    TwoLevelQuantizer q(n, cfg, s);
    std::vector<std::vector<float>> shards;
    q.reduce_scatter(pointers(grads), shards);
    for (std::size_t r = 0; r < W; ++r)
      for (std::size_t i = 0; i < q.shard_numel() && r * q.shard_numel() + i < n; ++i) // the last shard's padding
        mean[r * q.shard_numel() + i] += shards[r][i] / static_cast<double>(seeds);          // is not a value
  }
  const auto avg = exact_average(grads, n);
  for (std::size_t i = 0; i < n; ++i)
    REQUIRE(std::fabs(mean[i] - avg[i]) < 5 * sd / std::sqrt(static_cast<double>(seeds)));
}
} // namespace

TEST_CASE("TwoLevelQuantizer: stochastic TLq-HS is unbiased over seeds", "[numerics]")
{
  check_unbiased_over_seeds(TwoLevelConfig::tlq_hs(2, 2));
}

TEST_CASE("TwoLevelQuantizer: stochastic TLq and ULq are unbiased over seeds", "[numerics]")
{
  // Without the Hadamard stage (TLq: 8-bit intra, 4-bit inter) and 4-bit in both stages (ULq). On char-gpt at 200 steps
  // their loss gaps to fp32 swing by +-15 % between seeds (issue 42's diagnosis): not from a bias of the quantizer.
  check_unbiased_over_seeds(TwoLevelConfig::tlq(2, 2));
  check_unbiased_over_seeds(TwoLevelConfig::ulq(2, 2));
}

TEST_CASE("TwoLevelQuantizer: error order ULq > TLq > TLq-HS on gradients with outliers (SDP4Bit §3.2)", "[numerics]")
{
  // ULq quantizes twice at 4 bits; TLq's first stage is 8 bits (steps 18x finer), which removes ULq's stage-1
  // error and leaves the stage-2 error (whose step is ~g times larger, as partial sums of g workers grow): ULq's
  // error is therefore larger by a modest factor (>= 1.1 required; stage-1 error being ~1/4 of stage 2's in variance
  // gives ~1.12 for uniform rounding error). With one outlier of 30 per 32-block over N(0, 1), H cuts the group
  // step several fold (see Hadamard_test), so TLq-HS < TLq by >= 1.5x. 8 workers x 16384 values, fixed seeds.
  const std::size_t G = 2, g = 4, W = 8, n = 16384;
  std::mt19937 rng(17);
  std::normal_distribution<float> d;
  std::vector<std::vector<float>> grads(W, std::vector<float>(n));
  for (auto& v : grads) {
    for (auto& e : v)
      e = d(rng);
    for (std::size_t i = 7; i < n; i += 32)
      v[i] = 30.0f;
  }
  const double ulq = relative_error(TwoLevelConfig::ulq(G, g), grads, 1);
  const double tlq = relative_error(TwoLevelConfig::tlq(G, g), grads, 1);
  const double hs  = relative_error(TwoLevelConfig::tlq_hs(G, g), grads, 1);
  INFO("ULq " << ulq << ", TLq " << tlq << ", TLq-HS " << hs);
  CHECK(ulq > 1.1 * tlq);
  CHECK(tlq > 1.5 * hs);
}
