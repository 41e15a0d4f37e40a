// `ccsim bench-compute`'s shape grid (api/run/ComputeBench.hpp): the GEMMs of the transformer layers it names, each
// shape once, none above the FLOP cap, with the layouts and accumulation PyTorch's linear layers use.
#include "api/run/ComputeBench.hpp"

#include <catch2/catch.hpp>

#include <set>
#include <tuple>

using ccsim::api::compute_bench_grid;

TEST_CASE("ComputeBenchGrid: every shape once, under the FLOP cap, in the formats and layouts a layer runs", "[api]")
{
  const double cap = 2e13;
  const auto grid  = compute_bench_grid(/*quick=*/false, cap);
  std::set<std::tuple<double, double, double, double, int, std::string>> seen;
  std::set<std::string> formats;
  bool batched = false, fp32_wgrad = true;
  for (const auto& g : grid) {
    const auto& op = g.op;
    INFO(g.layer << " " << op.name);
    CHECK(op.gemm.flops() <= cap);
    CHECK(seen.insert({op.gemm.m, op.gemm.n, op.gemm.k, op.gemm.batch, static_cast<int>(op.precision),
                       op.name.substr(op.name.rfind('.') + 1)})
              .second);
    formats.insert(g.layer.substr(g.layer.rfind(' ') + 1));
    batched = batched || op.gemm.batch > 1;
    if (op.name.ends_with(".wgrad"))
      fp32_wgrad = fp32_wgrad && op.operands.output_bytes == 8;
  }
  CHECK(formats == std::set<std::string>{"bf16", "fp16", "fp8"});
  CHECK(batched);    // the unfused attention's per-head GEMMs
  CHECK(fp32_wgrad); // Megatron's weight gradients accumulate into fp32 main_grad
  // The h = 8192, tp = 4, 8192-token layer's QKV: 8192 tokens x 3 x 8192 / 4 columns x 8192 deep, in the grid.
  bool qkv = false;
  for (const auto& g : grid)
    qkv = qkv || (g.op.name == "qkv" && g.op.gemm.m == 8192 && g.op.gemm.n == 6144 && g.op.gemm.k == 8192);
  CHECK(qkv);
  // Sizes, for the device run's time budget: a few hundred to a few thousand shapes.
  CHECK(grid.size() > 300);
  CHECK(grid.size() < 3000);
  CHECK(compute_bench_grid(/*quick=*/true, cap).size() < grid.size() / 4);
}
