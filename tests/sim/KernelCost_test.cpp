// Kernel times of the per-operator model held to closed forms: a GEMM whose tiles fill whole waves runs at the
// sustained rate, one more row costs one more wave, a skinny GEMM sits on the memory roofline, an element-wise kernel
// streams at the bandwidth, and a tile's fixed cost and a starved L2 slow it as the formula in KernelCost.hpp says.
#include "sim/compute/KernelCost.hpp"

#include <catch2/catch.hpp>

using namespace ccsim::sim;

namespace {
/// An A100-like GPU reduced to what each test isolates: 108 SMs, one 256x128 tile, bf16 at 312 TFLOP/s and the whole
/// of it sustained, no tile overhead, no launch gap, an L2 that never starves a tile.
GpuCompute test_gpu()
{
  GpuCompute g;
  g.sms                       = 108;
  g.tiles                     = {{256, 128}};
  g.rates[Precision::BF16]    = {312e12, 1.0};
  g.tile_overhead_s           = 0;
  g.l2_bytes_per_s            = 1e18;
  g.launch_s                  = 0;
  g.flash_forward_efficiency  = 0.5;
  g.flash_backward_efficiency = 0.25;
  g.memory_efficiency         = 0.5;
  return g;
}
constexpr double kFastMemory = 1e18; // bytes/s: no GEMM below is memory-bound
const GemmOperands kBf16{2, 2};
} // namespace

TEST_CASE("gemm_cost: tiles that fill two whole waves run at the sustained rate", "[sim]")
{
  // 6144 / 256 = 24 row tiles x 1152 / 128 = 9 column tiles = 216 tiles = exactly 2 waves of 108 SMs: every SM busy
  // the whole time, so the time is the FLOPs over peak x efficiency, 2 x 6144 x 1152 x 4096 / 312e12 = 185.84 us.
  const GemmShape s{6144, 1152, 4096};
  const auto c = gemm_cost(s, kBf16, Precision::BF16, test_gpu(), kFastMemory);
  CHECK(c.seconds == Approx(2.0 * 6144 * 1152 * 4096 / 312e12).epsilon(1e-12));
  CHECK(c.waves == 2);
  CHECK(c.split_k == 1);
  CHECK_FALSE(c.memory_bound);
}

TEST_CASE("gemm_cost: one row more than two full waves costs a third wave", "[sim]")
{
  // k = 128 allows no split-K (each split keeps >= 128 of k). 6145 rows need 25 row tiles: 225 tiles, 3 waves, each
  // as long as a full one: 3 / 2 of the 6144-row GEMM's time.
  auto gpu        = test_gpu();
  const auto full = gemm_cost({6144, 1152, 128}, kBf16, Precision::BF16, gpu, kFastMemory);
  const auto more = gemm_cost({6145, 1152, 128}, kBf16, Precision::BF16, gpu, kFastMemory);
  CHECK(full.waves == 2);
  CHECK(more.waves == 3);
  CHECK(more.seconds == Approx(1.5 * full.seconds).epsilon(1e-12));
  CHECK(full.seconds == Approx(2 * 2.0 * 256 * 128 * 128 / (312e12 / 108)).epsilon(1e-12));
}

TEST_CASE("gemm_cost: a skinny GEMM runs at the memory roofline", "[sim]")
{
  // A matrix-vector product, 1 x 8192 by 8192 x 8192, on tensor cores too fast to matter: its time is the bytes it
  // must move, A (8192 x 2) + B (8192^2 x 2) + C (8192 x 2), over the bandwidth the GPU streams at, 2e12 x 0.5.
  auto gpu                      = test_gpu();
  gpu.rates[Precision::BF16]    = {1e18, 1.0};
  const double bytes            = (8192.0 + 8192.0 * 8192) * 2 + 8192.0 * 2;
  const auto c                  = gemm_cost({1, 8192, 8192}, kBf16, Precision::BF16, gpu, 2e12);
  CHECK(c.memory_bound);
  CHECK(c.split_k == 1); // splitting k only adds fp32 partial sums to move
  CHECK(c.seconds == Approx(bytes / 1e12).epsilon(1e-12));
}

TEST_CASE("gemm_cost: a tile's fixed cost is paid once per wave", "[sim]")
{
  // The two-wave GEMM with k = 4096, and a fixed cost per tile as long as one wave's main loop: twice the time.
  auto gpu            = test_gpu();
  const auto plain    = gemm_cost({6144, 1152, 4096}, kBf16, Precision::BF16, gpu, kFastMemory);
  gpu.tile_overhead_s = plain.seconds / 2;
  const auto overhead = gemm_cost({6144, 1152, 4096}, kBf16, Precision::BF16, gpu, kFastMemory);
  CHECK(overhead.seconds == Approx(2 * plain.seconds).epsilon(1e-12));
}

TEST_CASE("gemm_cost: a small tile starved by L2 runs at the rate L2 feeds it", "[sim]")
{
  // One 64x64 tile per SM, 108 tiles (one wave). Each k-step loads 64 + 64 bf16 elements = 256 bytes from L2 at
  // l2 / sms = 1e12 / 108 bytes/s, i.e. 27.648 ns, while its 2 x 64 x 64 multiply-adds take 8192 / (312e12 / 108) =
  // 2.836 ns: the tile is fed, not computed, and k = 1024 steps take 28.31 us.
  auto gpu           = test_gpu();
  gpu.tiles          = {{64, 64}};
  gpu.l2_bytes_per_s = 1e12;
  const auto c       = gemm_cost({64 * 12, 64 * 9, 1024}, kBf16, Precision::BF16, gpu, kFastMemory);
  CHECK(c.waves == 1);
  CHECK(c.split_k == 1); // more waves of shorter k-loops would take as long: the first candidate stays
  CHECK(c.seconds == Approx(1024 * 256 / (1e12 / 108)).epsilon(1e-12));
}

TEST_CASE("gemm_cost: the kernel takes the tile that wastes least of the last wave", "[sim]")
{
  // 128 x 13824 by k = 4096: with 256x128 tiles, 108 tiles (half of each tile's rows empty, one wave); with 128x128
  // tiles the same 108 tiles, each half the work: half the time. The model picks the 128x128 tile.
  auto gpu        = test_gpu();
  gpu.tiles       = {{256, 128}, {128, 128}};
  const auto c    = gemm_cost({128, 13824, 4096}, kBf16, Precision::BF16, gpu, kFastMemory);
  CHECK(c.tile.m == 128);
  CHECK(c.tile.n == 128);
  CHECK(c.seconds == Approx(2.0 * 128 * 128 * 4096 / (312e12 / 108)).epsilon(1e-12));
}

TEST_CASE("elementwise_cost: a memory-bound kernel streams its bytes at the bandwidth plus one launch", "[sim]")
{
  // 1 GB at 2e12 x 0.5 bytes/s = 1 ms, and 5 us of launch gap.
  auto gpu     = test_gpu();
  gpu.launch_s = 5e-6;
  const auto c = elementwise_cost(1e9, gpu, 2e12);
  CHECK(c.seconds == Approx(1e-3 + 5e-6).epsilon(1e-12));
  CHECK(c.memory_bound);
  CHECK(c.flops == 0);
}

TEST_CASE("flash_attention_cost: FLOPs at the forward or backward share of peak", "[sim]")
{
  // 1e12 FLOPs at 312e12 x 0.5 forward = 6.41 ms; backward at 0.25 = twice that.
  const auto gpu = test_gpu();
  const auto f   = flash_attention_cost(1e12, 1e6, /*backward=*/false, Precision::BF16, gpu, kFastMemory);
  const auto b   = flash_attention_cost(1e12, 1e6, /*backward=*/true, Precision::BF16, gpu, kFastMemory);
  CHECK(f.seconds == Approx(1e12 / (312e12 * 0.5)).epsilon(1e-12));
  CHECK(b.seconds == Approx(2 * f.seconds).epsilon(1e-12));
  CHECK_FALSE(f.memory_bound);
}
