// The per-operator compute model on the command line (issue 40): `simulate --format json` carries one layer's kernels
// with their time, FLOPs, bytes and bound, whose pass totals are what the step charges per micro-batch; `--wide`
// prints them; a workload's recomputation mode and `--recompute` reach the kernels that run again; a sustained rate
// a topology sets still overrides the model.
#include "tests/support/RunCcsim.hpp"
#include "tests/support/SimulateJson.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using ccsim::test::run_ccsim;
using ccsim::test::simulate_json;
using ccsim::test::write_temp_file;

namespace {
double sum_ms(const nlohmann::json& block, const std::string& pass)
{
  double s = 0;
  for (const auto& op : block["ops"])
    if (op["pass"] == pass)
      s += op["time_ms"].get<double>();
  return s;
}
} // namespace

TEST_CASE("ccsim simulate: a per-operator run reports one layer's kernels and its micro-batch is their sum", "[cli]")
{
  // Llama 3 8B on one H100 node, tp 2 pp 1 (it fits 80 GB without recomputation): the stage is 32 layers, the
  // embedding and the output layer.
  const auto d = simulate_json("--topology h100x8-ib400x8 --workload llama3-8b --algorithm megatron-dp --gpus 8 --tp 2");
  REQUIRE(d.contains("operators"));
  const auto& o = d["operators"];
  CHECK(o["precision"] == "bf16");
  CHECK(o["layers_per_stage"] == nlohmann::json::array({32}));
  const auto& layer = o["layer"];
  CHECK(layer["forward_ms"].get<double>() == Approx(sum_ms(layer, "forward")).epsilon(1e-9));
  CHECK(layer["backward_ms"].get<double>() == Approx(sum_ms(layer, "backward")).epsilon(1e-9));
  bool qkv = false;
  for (const auto& op : layer["ops"]) {
    CHECK((op["bound"] == "compute" || op["bound"] == "memory"));
    if (op["name"] == "qkv") { // m = 8,192 tokens, n = (q + 2 kv) / tp = (4,096 + 2 x 1,024) / 2, k = h = 4,096
      qkv = true;
      CHECK(op["gemm"]["m"].get<double>() == 8192);
      CHECK(op["gemm"]["n"].get<double>() == 3072);
      CHECK(op["gemm"]["k"].get<double>() == 4096);
      CHECK(op["flops"].get<double>() == Approx(2.0 * 8192 * 3072 * 4096));
    }
  }
  CHECK(qkv);
  const double forward = 32 * layer["forward_ms"].get<double>() + o["embedding"]["forward_ms"].get<double>() +
                         o["output"]["forward_ms"].get<double>();
  CHECK(d["config"]["forward_ms_per_micro_batch"].get<double>() == Approx(forward).epsilon(1e-9));
  CHECK(d["config"]["compute_source"].get<std::string>().rfind("operators: bf16 GEMMs", 0) == 0);
}

TEST_CASE("ccsim simulate: --recompute reruns the whole layer forward in every backward", "[cli]")
{
  const std::string base = "--topology h100x8-ib400x8 --workload llama3-8b --algorithm megatron-dp --gpus 8 --tp 2";
  const auto plain       = simulate_json(base);
  REQUIRE(plain["operators"]["recompute"] == "none");
  const auto full        = simulate_json(base + " --recompute");
  CHECK(full["operators"]["recompute"] == "full");
  const auto& layer = full["operators"]["layer"];
  CHECK(layer["recompute_ms"].get<double>() == Approx(layer["forward_ms"].get<double>()).epsilon(1e-9));
  // The micro-batch's backward grows by the 32 layers' recomputed forward.
  CHECK(full["config"]["backward_ms_per_micro_batch"].get<double>() ==
        Approx(plain["config"]["backward_ms_per_micro_batch"].get<double>() + 32 * layer["recompute_ms"].get<double>())
            .epsilon(1e-9));
}

TEST_CASE("ccsim simulate: --wide lists every kernel and the narrow table one line", "[cli]")
{
  const std::string base =
      "simulate --topology h100x8-ib400x8 --workload llama3-8b --algorithm megatron-dp --gpus 8 --tp 2";
  const auto narrow      = run_ccsim(base);
  const auto wide        = run_ccsim(base + " --wide");
  REQUIRE(narrow.exit_code == 0);
  REQUIRE(wide.exit_code == 0);
  CHECK(narrow.out.find("compute per operator (bf16 GEMMs, recompute none)") != std::string::npos);
  CHECK(narrow.out.find("fc2.wgrad") == std::string::npos);
  CHECK(wide.out.find("fc2.wgrad") != std::string::npos);
  CHECK(wide.out.find("cross_entropy") != std::string::npos);
}

TEST_CASE("ccsim simulate: a sustained rate in the topology overrides the per-operator model", "[cli]")
{
  // The same H100 cluster with gpu.sustained_tflops added: compute is FLOPs over it, no operators block.
  auto topo = nlohmann::json::parse(ccsim::test::read_file(std::string(CCSIM_SOURCE_DIR) + "/topologies/h100x8-ib400x8.json"));
  topo["gpu"]["sustained_tflops"] = 400;
  const auto path = write_temp_file("h100-sustained.json", topo.dump());
  const auto d = simulate_json("--topology " + path + " --workload llama3-8b --algorithm megatron-dp --gpus 8 --tp 2");
  CHECK_FALSE(d.contains("operators"));
  CHECK(d["config"]["compute_source"].get<std::string>().rfind("flops:", 0) == 0);
}

TEST_CASE("ccsim simulate: a GEMM format the GPU does not run is one line naming the workload's precision", "[cli]")
{
  // The A100 has no FP8 tensor cores (its compute block lists tf32, fp16 and bf16).
  auto work = nlohmann::json::parse(ccsim::test::read_file(std::string(CCSIM_SOURCE_DIR) + "/workloads/llama3-8b.json"));
  work["defaults"]["precision"] = "fp8";
  const auto path = write_temp_file("llama3-8b-fp8.json", work.dump());
  const auto r    = run_ccsim("simulate --topology a100x8-ib200x8 --workload " + path + " --algorithm megatron-dp --gpus 8");
  CHECK(r.exit_code == 2);
  CHECK(ccsim::test::line_count(r.err) == 1);
  CHECK(r.err.find(path + ": /defaults/precision: fp8 GEMMs, but the A100 of topology a100x8-ib200x8 runs tf32, fp16, "
                          "bf16 (gpu.compute.tensor_tflops)") != std::string::npos);
}
