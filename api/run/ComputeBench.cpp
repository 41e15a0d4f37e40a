// `ccsim bench-compute`'s grid and measurement document (ComputeBench.hpp).
#include "api/run/ComputeBench.hpp"

#include "io/JsonInput.hpp"
#include "numerics/cuda/ComputeBenchCuda.hpp"
#include "numerics/cuda/Device.hpp"

#include <fmt/format.h>

#include <set>
#include <stdexcept>
#include <tuple>

namespace ccsim::api {

namespace {
/// cuBLAS's transposes as PyTorch calls them (numerics/cuda/ComputeBenchCuda.hpp): forward "TN", a data gradient
/// (and every other backward product) "NN", a weight gradient "NT".
std::string layout_of(const sim::OpSpec& op)
{
  if (op.pass == sim::Pass::FORWARD || op.pass == sim::Pass::RECOMPUTE)
    return "TN";
  return op.name.ends_with(".wgrad") ? "NT" : "NN";
}

numerics::cuda::GemmBenchShape shape_of(const sim::OpSpec& op)
{
  numerics::cuda::GemmBenchShape s;
  s.m               = static_cast<std::int64_t>(op.gemm.m);
  s.n               = static_cast<std::int64_t>(op.gemm.n);
  s.k               = static_cast<std::int64_t>(op.gemm.k);
  s.batch           = static_cast<std::int64_t>(op.gemm.batch);
  s.layout          = layout_of(op);
  s.dtype           = sim::to_string(op.precision);
  s.fp32_accumulate = op.operands.output_bytes >= 8;
  return s;
}
} // namespace

sim::TransformerArchitecture gpt_bench_layer(std::int64_t hidden, std::int64_t heads, std::int64_t ffn, std::int64_t seq,
                                             bool flash)
{
  sim::TransformerArchitecture a;
  a.layers          = 1;
  a.hidden          = hidden;
  a.heads           = heads;
  a.kv_heads        = heads;
  a.head_dim        = hidden / heads;
  a.ffn_hidden      = ffn;
  a.activation      = sim::Activation::GELU;
  a.norm            = sim::Norm::LAYERNORM;
  a.vocab           = 51200;
  a.seq_len         = seq;
  a.linear_bias     = true;
  a.positions       = sim::Positions::LEARNED;
  a.flash_attention = flash;
  a.dropout         = true;
  return a;
}

std::vector<ComputeBenchGemm> compute_bench_grid(bool quick, double max_flops)
{
  struct Tokens {
    std::uint64_t micro_batch;
    std::int64_t seq;
  };
  const std::vector<std::int64_t> hiddens = quick ? std::vector<std::int64_t>{2048, 8192}
                                                  : std::vector<std::int64_t>{1024, 2048, 4096, 8192, 12288, 16384, 32768};
  const std::vector<int> tps           = quick ? std::vector<int>{1, 8} : std::vector<int>{1, 2, 4, 8};
  const std::vector<Tokens> tokens     = quick ? std::vector<Tokens>{{1, 2048}} : std::vector<Tokens>{{1, 2048}, {4, 2048}, {8, 4096}};
  std::vector<ComputeBenchGemm> grid;
  std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::string, std::string, bool>> seen;
  const auto add = [&](const sim::TransformerArchitecture& a, const sim::ComputeSplit& split) {
    const std::string layer = fmt::format("h{} tp{} tokens{}{} {}", a.hidden, split.tp, split.micro_batch * split.seq_len,
                                          a.flash_attention ? "" : " unfused", sim::to_string(split.precision));
    for (const sim::OpSpec& op : sim::layer_ops(a, split)) {
      if (op.kind != sim::OpKind::GEMM || op.pass == sim::Pass::RECOMPUTE || op.gemm.flops() > max_flops)
        continue;
      const auto s = shape_of(op);
      if (seen.insert({s.m, s.n, s.k, s.batch, s.layout, s.dtype, s.fp32_accumulate}).second)
        grid.push_back({layer, op});
    }
  };
  for (const auto precision : {sim::Precision::BF16, sim::Precision::FP8, sim::Precision::FP16})
    for (const std::int64_t h : hiddens)
      for (const int tp : tps)
        for (const Tokens& t : tokens) {
          if (precision == sim::Precision::FP16 && tp != 1)
            continue; // fp16 runs on the same tensor cores as bf16: tp 1 shows whether it differs
          sim::ComputeSplit split;
          split.micro_batch = t.micro_batch;
          split.seq_len     = t.seq;
          split.tp          = tp;
          split.precision   = precision;
          add(gpt_bench_layer(h, h / 128, 4 * h, t.seq, /*flash=*/true), split);
          // Unfused attention's batched GEMMs (per head), at the two tokens counts of one 2K sequence.
          if (precision == sim::Precision::BF16 && t.seq == 2048 && (h == 4096 || h == 8192) && (tp == 1 || tp == 8))
            add(gpt_bench_layer(h, h / 128, 4 * h, t.seq, /*flash=*/false), split);
        }
  return grid;
}

nlohmann::json measure_compute(bool quick, int trials)
{
  if (numerics::cuda::device_count() == 0)
    throw io::InputError("--backend", "", numerics::cuda::built_with_cuda() ? "cuda: no CUDA device found"
                                                                             : "cuda: ccsim was built without CUDA");
  const numerics::cuda::ComputeDevice device = numerics::cuda::compute_device();
  const auto grid = compute_bench_grid(quick, /*max_flops=*/2e13);
  std::vector<numerics::cuda::GemmBenchShape> shapes;
  for (const auto& g : grid)
    shapes.push_back(shape_of(g.op));
  // The element-wise kernels and the launch gap first: a GEMM that faults the context would leave nothing after it.
  const auto elementwise = numerics::cuda::bench_elementwise(std::int64_t{1} << 27, trials); // 256 MiB per tensor
  const double launch    = numerics::cuda::bench_launch_gap(1000);
  const auto gemms       = numerics::cuda::bench_gemms(shapes, trials, /*min_trial_ms=*/quick ? 2.0 : 5.0);

  const auto version = [](int v) { return fmt::format("{}.{}", v / 1000, v % 1000 / 10); };
  nlohmann::json doc = {
      {"device",
       {{"name", device.name},
        {"sms", device.sms},
        {"memory_bus_bits", device.memory_bus_bits},
        {"driver_cuda", version(device.driver_version)},
        {"runtime_cuda", version(device.runtime_version)},
        {"cublaslt", device.cublaslt_version}}},
      {"source", fmt::format("ccsim bench-compute --backend cuda{} on {} ({} SMs; driver for CUDA {}, runtime {}, "
                             "cuBLASLt {}): median of {} trials per kernel",
                             quick ? " --quick" : "", device.name, device.sms, version(device.driver_version),
                             version(device.runtime_version), device.cublaslt_version, trials)},
      {"launch_us", launch * 1e6},
      {"elementwise", nlohmann::json::array()},
      {"gemms", nlohmann::json::array()}};
  for (const auto& e : elementwise)
    doc["elementwise"].push_back(
        {{"kernel", e.kernel}, {"bytes", e.bytes}, {"us", e.seconds * 1e6}, {"GBps", e.bytes / e.seconds / 1e9}});
  for (std::size_t i = 0; i < gemms.size(); ++i) {
    const auto& r  = gemms[i];
    const auto& s  = r.shape;
    nlohmann::json row = {{"layer", grid[i].layer}, {"op", grid[i].op.name}, {"m", s.m}, {"n", s.n}, {"k", s.k},
                          {"batch", s.batch}, {"layout", s.layout}, {"dtype", s.dtype},
                          {"fp32_accumulate", s.fp32_accumulate}};
    if (r.error.empty()) {
      row["us"]       = r.seconds * 1e6;
      row["tflops"]   = grid[i].op.gemm.flops() / r.seconds / 1e12;
      row["launches"] = r.launches;
    } else {
      row["error"] = r.error;
    }
    doc["gemms"].push_back(std::move(row));
  }
  return doc;
}

} // namespace ccsim::api
