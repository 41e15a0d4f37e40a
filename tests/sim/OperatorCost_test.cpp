// The per-operator model assembled: layers per pipeline stage as the Llama 3 and BLOOM runs split them, the slowest
// stage, the pass totals as the sums of their kernels, the cost model's precedence (profile, then a sustained rate the
// topology sets, then per operator), and the compute block of a topology file checked at its JSON paths.
#include "sim/compute/CostModel.hpp"
#include "io/JsonInput.hpp"
#include "tests/support/InputErrors.hpp"
#include "tests/support/RunCcsim.hpp"

#include <catch2/catch.hpp>

#include <numeric>

using namespace ccsim::sim;
using ccsim::test::message_of;
using ccsim::test::write_temp_file;

namespace {
GpuSpec a100()
{
  GpuSpec g;
  g.name               = "A100";
  g.memory_bytes_per_s = 2039e9;
  GpuCompute c;
  c.sms                       = 108;
  c.tiles                     = {{256, 128}, {128, 128}, {64, 64}};
  c.rates[Precision::BF16]    = {312e12, 0.869};
  c.tile_overhead_s           = 5e-6;
  c.l2_bytes_per_s            = 7219e9;
  c.launch_s                  = 2e-6;
  c.flash_forward_efficiency  = 0.7;
  c.flash_backward_efficiency = 0.6;
  c.memory_efficiency         = 0.8;
  g.compute                   = c;
  return g;
}

TransformerArchitecture gpt_1t()
{
  TransformerArchitecture a; // Korthikanti et al. 2022 Table 1's 1T model
  a.layers = 128, a.hidden = 25600, a.heads = 160, a.kv_heads = 160, a.head_dim = 160, a.ffn_hidden = 102400;
  a.activation = Activation::GELU, a.norm = Norm::LAYERNORM, a.vocab = 51200, a.seq_len = 2048;
  a.linear_bias = true, a.positions = Positions::LEARNED, a.flash_attention = false, a.dropout = true;
  return a;
}

std::string topology_text(const std::string& gpu)
{
  return R"({"gpu": )" + gpu + R"(, "gpus_per_node": 8, "max_nodes": 2,
    "intra_node": {"bandwidth_gbps": 2400, "latency_us": 1}, "nic": {"bandwidth_gbps": 200, "latency_us": 5},
    "fabric": {"kind": "switch"}, "network_model": "rdma"})";
}

const char* kCompute = R"({"sms": 108, "tensor_tflops": {"bf16": 312}, "gemm_efficiency": {"bf16": 0.869},
    "tiles": [{"m": 256, "n": 128}], "tile_overhead_us": 5, "l2_gbps": 7219, "launch_us": 2,
    "flash_attention": {"forward": 0.7, "backward": 0.6}, "memory_efficiency": 0.8})";

std::string gpu_with_compute(const std::string& compute, const std::string& extra = "")
{
  return R"({"name": "A100", "memory_gbps": 2039, )" + extra + R"("compute": )" + compute + "}";
}

std::string replaced(std::string s, const std::string& from, const std::string& to)
{
  s.replace(s.find(from), from.size(), to);
  return s;
}
} // namespace

TEST_CASE("stage_layers: uneven layers leave the first and last stages one lighter", "[sim]")
{
  // BLOOM: 70 layers on 12 stages (Megatron-DeepSpeed counting the embeddings as layers): 5, ten of 6, 5.
  const auto bloom = stage_layers(70, 12);
  CHECK(bloom.front() == 5);
  CHECK(bloom.back() == 5);
  CHECK(std::count(bloom.begin(), bloom.end(), 6) == 10);
  // Llama 3 405B: 126 layers on 16 stages, one layer fewer on the first and the last (Llama 3 paper §3.3.2).
  const auto llama = stage_layers(126, 16);
  CHECK(llama.front() == 7);
  CHECK(llama.back() == 7);
  CHECK(std::count(llama.begin(), llama.end(), 8) == 14);
  // 11 on 4: three heavier stages; the last stays lighter (it runs the output layer).
  CHECK(stage_layers(11, 4) == std::vector<int>{3, 3, 3, 2});
  CHECK(stage_layers(128, 64) == std::vector<int>(64, 2));
  for (const auto& [layers, pp] : {std::pair{70, 12}, {126, 16}, {11, 4}, {7, 7}, {5, 1}}) {
    const auto s = stage_layers(layers, pp);
    CHECK(std::accumulate(s.begin(), s.end(), 0) == layers);
  }
}

TEST_CASE("chunks_are_whole: interleaved chunks of whole layers, the embedding and the output taking a slot each", "[sim]")
{
  // Llama 3 405B (§3.3.2): 126 layers + 2 slots = 128 = 16 stages x 8 chunks of one slot; also x 4 (2 slots), x 2 and
  // x 1; not x 3 (128 / 48) nor x 16 (128 / 256), and never without the two slots (126 is not a multiple of 16).
  for (const int vpp : {1, 2, 4, 8})
    CHECK(chunks_are_whole(126, 16, vpp, true));
  CHECK_FALSE(chunks_are_whole(126, 16, 3, true));
  CHECK_FALSE(chunks_are_whole(126, 16, 16, true));
  CHECK_FALSE(chunks_are_whole(126, 16, 2, false));
  // Even layers split either way: Korthikanti's 175B, 96 layers on 8 stages of 3 chunks (96 / 24 = 4 layers each).
  CHECK(chunks_are_whole(96, 8, 3, false));
  CHECK(chunks_are_whole(96, 8, 3, true));
  // Llama-2-7B's 32 layers on 4 stages: 3 chunks fit neither 32 / 12 nor 34 / 12.
  CHECK_FALSE(chunks_are_whole(32, 4, 3, true));
  // Where the layers divide the stages, stage_layers splits them evenly and the slots do not count: 126 on 2 stages
  // is 63 + 63, which 2 chunks per stage do not cut (though 128 = 2 x 2 x 32); nor does one stage hold the slots
  // (30 + 2 = 32 = 1 x 32 chunks, but 30 / 32 is no whole chunk).
  CHECK_FALSE(chunks_are_whole(126, 2, 2, true));
  CHECK(chunks_are_whole(126, 2, 3, true));
  CHECK_FALSE(chunks_are_whole(30, 1, 32, true));
  // Where layers + 2 divide, stage_layers gives every inner stage (layers + 2) / pp layers and the two outer ones one
  // fewer: the same split the chunks assume.
  const auto s = stage_layers(126, 16);
  CHECK(s[1] == 128 / 16);
  CHECK(s.front() == 128 / 16 - 1);
  CHECK(s.back() == 128 / 16 - 1);
}

TEST_CASE("model_compute: with even stages the last is the slowest (it runs the output layer)", "[sim]")
{
  ComputeSplit split;
  split.seq_len = 2048;
  split.tp      = 8;
  const auto m  = model_compute(gpt_1t(), split, 64, a100());
  CHECK(m.slowest.stage == 63);
  CHECK(m.slowest.layers == 2);
  // Its forward is two layers' and the output layer's.
  CHECK(m.slowest.forward_s == Approx(2 * m.layer.forward_s + m.output.forward_s).epsilon(1e-12));
}

TEST_CASE("price_ops: each pass's total is the sum of its kernels' times", "[sim]")
{
  ComputeSplit split;
  split.seq_len   = 2048;
  split.tp        = 8;
  split.recompute = Recompute::SELECTIVE;
  const auto b    = price_ops(layer_ops(gpt_1t(), split), a100());
  double f = 0, w = 0, r = 0;
  for (const auto& [op, cost] : b.ops)
    (op.pass == Pass::FORWARD ? f : op.pass == Pass::BACKWARD ? w : r) += cost.seconds;
  CHECK(b.forward_s == Approx(f).epsilon(1e-12));
  CHECK(b.backward_s == Approx(w).epsilon(1e-12));
  CHECK(b.recompute_s == Approx(r).epsilon(1e-12));
  CHECK(b.recompute_s > 0);
  CHECK(b.recompute_s < b.forward_s);
}

TEST_CASE("compute_times: a profile first - then a sustained rate the topology sets - then the per-operator model", "[sim]")
{
  Workload w;
  w.name             = "1t";
  w.architecture     = gpt_1t();
  w.layers           = 128;
  w.seq_len          = 2048;
  w.flops_per_sample = flops_per_sample(*w.architecture, 2048);
  Topology t;
  t.gpu = a100();
  StepShape s;
  s.tp = 8, s.pp = 64, s.micro_batch = 1, s.seq_len = 2048;
  const auto per_op = compute_times(t, w, s);
  REQUIRE(per_op.operators.has_value());
  CHECK(per_op.forward_s == Approx(per_op.operators->slowest.forward_s).epsilon(1e-12));
  // A sustained rate overrides the curves: FLOPs / (rate x tp x pp), a third forward.
  t.gpu.sustained_flops = 100e12;
  const auto sustained  = compute_times(t, w, s);
  CHECK_FALSE(sustained.operators.has_value());
  CHECK(sustained.forward_s == Approx(w.flops_per_sample / (100e12 * 8 * 64) / 3).epsilon(1e-12));
  // Full recomputation on the sustained path repeats the forward (as before the per-operator model).
  s.recompute = Recompute::FULL;
  CHECK(compute_times(t, w, s).recompute_s == Approx(sustained.forward_s).epsilon(1e-12));
}

TEST_CASE("load_topology: a compute block loads in SI units and its bad fields are one line at their path", "[sim]")
{
  const auto ok = load_topology(write_temp_file("ok.json", topology_text(gpu_with_compute(kCompute))));
  REQUIRE(ok.gpu.compute.has_value());
  CHECK_FALSE(ok.gpu.sustained_flops.has_value());
  CHECK(ok.gpu.compute->rate(Precision::BF16)->peak_flops == Approx(312e12));
  CHECK(ok.gpu.compute->l2_bytes_per_s == Approx(7219e9));
  CHECK(ok.gpu.compute->launch_s == Approx(2e-6));
  CHECK(ok.gpu.peak_flops == Approx(312e12)); // reported peak defaults to the 16-bit tensor peak
  CHECK(ok.gpu.compute->rate(Precision::FP8) == nullptr);

  auto error = [](const std::string& gpu) {
    const auto f = write_temp_file("bad.json", topology_text(gpu));
    const auto m = message_of([&] { load_topology(f); });
    return m.substr(f.size() + 2); // the path and problem after "FILE: "
  };
  CHECK(error(R"({"name": "A100", "memory_gbps": 2039})") ==
        "/gpu: needs a compute block (the per-operator model) or sustained_tflops (one rate for every FLOP)");
  CHECK(error(gpu_with_compute(replaced(kCompute, R"("bf16": 312})", R"("bf16": 312, "fp8": 624})"))) ==
        "/gpu/compute/gemm_efficiency: no efficiency for fp8, which tensor_tflops lists");
  CHECK(error(gpu_with_compute(replaced(kCompute, R"({"bf16": 312})", R"({"int4": 312})"))) ==
        "/gpu/compute/tensor_tflops/int4: not a number format: use tf32, fp16, bf16 or fp8");
  CHECK(error(gpu_with_compute(replaced(kCompute, R"("m": 256)", R"("m": 4)"))) ==
        "/gpu/compute/tiles/0/m: must be >= 8 and <= 1024 (got 4)");
  CHECK(error(gpu_with_compute(replaced(kCompute, R"("memory_efficiency": 0.8)", R"("memory_efficiency": 0)"))) ==
        "/gpu/compute/memory_efficiency: must be >= 0.001 and <= 1 (got 0)");
  // A denormal efficiency would price a GEMM at an infinite time (SimGrid aborts on it): below 0.1 % is refused.
  CHECK(error(gpu_with_compute(replaced(kCompute, R"("gemm_efficiency": {"bf16": 0.869})",
                                        R"("gemm_efficiency": {"bf16": 1e-320})"))) ==
        "/gpu/compute/gemm_efficiency/bf16: must be >= 0.001 and <= 1 (got 1e-320)");
  CHECK(error(gpu_with_compute(replaced(kCompute, R"("tiles": [{"m": 256, "n": 128}])", R"("tiles": [])"))) ==
        "/gpu/compute/tiles: needs 1 to 64 tiles (got 0)");
}

TEST_CASE("load_workload: defaults.recompute and defaults.precision load - selective only with an architecture", "[sim]")
{
  const auto plain = write_temp_file("plain.json", R"({"family": "gpt", "params": 1000, "layers": 2, "hidden": 8,
      "seq_len": 16, "tensors": 4, "flops_per_sample": 145152, "defaults": {"recompute": "selective"}})");
  CHECK(message_of([&] { load_workload(plain); }) ==
        plain + ": /defaults/recompute: selective recomputation needs an architecture block (the attention core it "
                "reruns)");
  const auto bad = write_temp_file("bad.json", R"({"family": "gpt", "params": 1000, "layers": 2, "hidden": 8,
      "seq_len": 16, "tensors": 4, "flops_per_sample": 145152, "defaults": {"precision": "fp4"}})");
  CHECK_THAT(message_of([&] { load_workload(bad); }), Catch::StartsWith(bad + ": /defaults/precision: 'fp4' is not one of"));
  const auto full = write_temp_file("full.json", R"({"family": "gpt", "params": 1000, "layers": 2, "hidden": 8,
      "seq_len": 16, "tensors": 4, "flops_per_sample": 145152, "defaults": {"recompute": "full", "precision": "fp8"}})");
  const auto w = load_workload(full);
  CHECK(w.recompute == Recompute::FULL);
  CHECK(w.precision == Precision::FP8);
}
