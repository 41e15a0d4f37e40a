// Llama-class presets on the command line (issue 29): simulate and advise run on them by name, FLOPs and memory
// follow their hand-worked closed forms, and expert parallelism is chosen with --param ep.
#include "tests/support/RunCcsim.hpp"
#include "tests/support/SimulateJson.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using ccsim::test::line_count;
using ccsim::test::run_ccsim;
using ccsim::test::simulate_json;

TEST_CASE("ccsim simulate: Llama-2-7B on 64 H800s with megatron-dp fits 80 GB and counts causal FLOPs", "[cli]")
{
  const auto d = simulate_json("--topology h800x8-ib400x8 --workload llama2-7b --algorithm megatron-dp --gpus 64");
  const auto& m = d["memory"];
  CHECK(m["fits"] == "yes");
  CHECK(m["capacity_gb"].get<double>() == Approx(80));
  CHECK(d["memory_gb_per_gpu"].get<double>() < 80);
  // Activations, micro-batch 1 of 4096 tokens, h 4096, q = kv = 4096, f 11008, 32 heads, FlashAttention, t = 1:
  //   per token 8h + 4q + 4kv + 6f + 4a = 32,768 + 32,768 + 66,048 + 128 = 131,712 B; x 4096 x 32 layers
  //   = 17,263,755,264 B, plus fp32 logits 4 x 4096 x 32,000 = 524,288,000 B (eq. 2 would give 3,104 MiB per layer).
  CHECK(m["breakdown_gb"]["activations"].get<double>() == Approx(17.788043264).epsilon(1e-12));
  // Model FLOPs per sample, causal convention: 4096 x (6N + 6·L·s·q), N = 6,738,415,616 - 32,000 x 4096 (embedding
  // lookup) - 65 x 4096 (norms) = 6,607,077,376 matmul weights.
  const double flops = 4096 * (6 * 6607077376.0 + 6.0 * 32 * 4096 * 4096);
  CHECK(d["tflops_per_gpu"].get<double>() ==
        Approx(d["samples_per_s"].get<double>() * flops / 64 / 1e12).epsilon(1e-9));
  CHECK_FALSE(d["config"].contains("ep")); // a dense model has no expert-parallel degree
}

TEST_CASE("ccsim simulate: Mixtral takes its expert-parallel degree from --param ep or its recipe", "[cli]")
{
  const std::string base = "--topology h800x8-ib400x8 --workload mixtral-8x7b --algorithm megatron-dp --gpus 64 ";
  CHECK(simulate_json(base)["config"]["ep"] == 8); // defaults.ep (NeMo's EP 8)
  const auto two = simulate_json(base + "--param ep=2 --allow-oom"); // 4 experts per rank: 48 GB of bf16 weights
  CHECK(two["config"]["ep"] == 2);
  // Fewer experts per rank at ep 8 than at ep 2: the weights shrink (1/8 of the experts instead of 1/2).
  CHECK(simulate_json(base)["memory"]["breakdown_gb"]["weights"].get<double>() <
        two["memory"]["breakdown_gb"]["weights"].get<double>());
  for (const auto& [param, problem] :
       {std::pair{"ep=3", "--param: ep=3: does not divide the 8 experts"},
        std::pair{"ep=0", "--param ep: must be >= 1 and <= 1024 (got 0)"}}) {
    const auto r = run_ccsim("simulate " + base + "--param " + param);
    CHECK(r.exit_code == 2);
    CHECK(line_count(r.err) == 1);
    CHECK(r.err.find(problem) != std::string::npos);
  }
  const auto dense = run_ccsim("simulate --topology h800x8-ib400x8 --workload llama2-7b --algorithm megatron-dp "
                               "--gpus 16 --param ep=2");
  CHECK(dense.exit_code == 2);
  CHECK(dense.err.find("ep=2: workload llama2-7b is not a mixture of experts") != std::string::npos);
}

TEST_CASE("ccsim advise: a Llama preset is ranked against Megatron's sharded data parallelism", "[cli]")
{
  const auto r = run_ccsim("advise --topology h800x8-ib400x8 --workload llama3-8b --gpus 16 --format json --quiet");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto d = nlohmann::json::parse(r.out);
  CHECK(d["baseline"] == "megatron-dp"); // decoder-only LMs: sharded DP, as for the papers' GPT models
  REQUIRE(d["ranking"].size() >= 2);
  bool baseline_ranked = false;
  for (const auto& row : d["ranking"])
    baseline_ranked = baseline_ranked || row["algorithm"] == "megatron-dp";
  CHECK(baseline_ranked);
}
