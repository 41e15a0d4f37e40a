// The memory model of `ccsim simulate` (issue 14): closed forms of the states and activations, SLAMB Table 9's
// measured optimizer memory, and the one-line error of a run that does not fit.
#include "tests/support/RunCcsim.hpp"
#include "tests/support/SimulateJson.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using ccsim::test::line_count;
using ccsim::test::run_ccsim;

namespace {
nlohmann::json memory_of(const std::string& args)
{
  return ccsim::test::simulate_json(args)["memory"];
}
} // namespace

TEST_CASE("Memory: BERT-Large states and activations match their closed forms", "[cli]")
{
  // BERT-Large, 340,000,000 parameters (workloads/bert-large.json), one V100, LAMB: 16 bytes per parameter
  // (fp16 weights 2, fp16 gradients 2, fp32 master + m + v 12; ZeRO §3.1).
  const auto m = memory_of("--topology v100x1-native --workload bert-large --algorithm lamb --gpus 1");
  const auto& b = m["breakdown_gb"];
  CHECK(b["weights"].get<double>() == Approx(0.68));
  CHECK(b["gradients"].get<double>() == Approx(0.68));
  CHECK(b["optimizer_states"].get<double>() == Approx(4.08));
  CHECK(b["compression_buffers"].get<double>() == 0);
  // Activations, micro-batch 16, seq 128, h 1024, 16 heads, 24 layers, vocab 30,522 (Korthikanti et al. eq. 2):
  //   per layer s b h (10 + 24 + 5 a s / h) = 128·16·1024·(34 + 10) = 92,274,688 B; x 24 = 2,214,592,512 B;
  //   fp32 logits 4 s b V = 250,036,224 B; total 2,464,628,736 B.
  //   Recomputed: 2 s b h x 24 = 100,663,296 B + one layer 92,274,688 B + logits = 442,974,208 B.
  CHECK(b["activations"].get<double>() == Approx(2.464628736).epsilon(1e-9));
  CHECK(b["activations_recomputed"].get<double>() == Approx(0.442974208).epsilon(1e-9));
  CHECK(m["fits"] == "yes");
  CHECK(m["capacity_gb"].get<double>() == Approx(16));
}

TEST_CASE("Memory: 1-bit LAMB and SLAMB over LAMB match SLAMB Table 9's measured optimizer memory", "[cli]")
{
  // SLAMB Appendix F, Table 9 (BERT-Large on one V100): LAMB 5.6 GB, 1-bit LAMB 10.9 GB, SLAMB 7.9 GB. The extras are
  // 5.3 GB and 2.3 GB; ccsim's model gives 1-bit LAMB 4 fp32 copies (worker and server errors at dp = 1, the fresh
  // variance, last step's momentum) = 16 x 340M = 5.44 GB, and SLAMB's 1.7 copies (fitted on this table: a
  // hypothesis) = 2.31 GB. Tolerance 5 % of the measurement for 1-bit LAMB (derived, not fitted).
  const auto base = "--topology v100x1-native --workload bert-large --gpus 1 --algorithm ";
  // Table 9 profiles the optimizer, so its peak holds the persistent buffers and the step's temporaries together.
  auto extra = [&](const char* algorithm) {
    const auto b = memory_of(std::string(base) + algorithm)["breakdown_gb"];
    return b["compression_buffers"].get<double>() + b["optimizer_step_temporaries"].get<double>();
  };
  const double onebit = extra("onebit-lamb");
  const double slamb  = extra("slamb");
  CHECK(onebit == Approx(10.9 - 5.6).epsilon(0.05));
  CHECK(slamb == Approx(7.9 - 5.6).epsilon(0.02));
}

TEST_CASE("Memory: GPT-13B with data parallelism only does not fit 32 GB V100s - a one-line error", "[cli]")
{
  // 12.85e9 parameters x 16 bytes = 206 GB of states per GPU before any activation (issue 14's example).
  const auto r = run_ccsim("simulate --topology v100x8-ib100 --workload gpt-13b --algorithm adam --gpus 32 --tp 1 "
                           "--pp 1 --quiet");
  CHECK(r.exit_code == 2);
  CHECK(line_count(r.err) == 1);
  CHECK(r.err.find("v100x8-ib100.json: /gpu/memory_gb") != std::string::npos);
  CHECK(r.err.find("32 GB") != std::string::npos);
  // --allow-oom simulates it anyway and says so.
  const auto m = memory_of("--topology v100x8-ib100 --workload gpt-13b --algorithm adam --gpus 32 --tp 1 --pp 1 "
                           "--allow-oom");
  CHECK(m["fits"] == "no");
  CHECK(m["gb_with_recomputation"].get<double>() > 200);
}

TEST_CASE("Memory: sharding the optimizer over dp divides its 12 bytes per parameter", "[cli]")
{
  // GPT-1.3B on 16 A100-40GB, tp 1 pp 1: megatron-dp keeps bf16 weights (2), an fp32 gradient buffer (4) and
  // 12 / dp bytes of optimizer state per parameter.
  const auto m = memory_of("--topology a100x4-slingshot100 --workload gpt-1.3b --algorithm megatron-dp --gpus 16 "
                           "--tp 1 --pp 1");
  const auto& b  = m["breakdown_gb"];
  const double w = b["weights"].get<double>() / 2; // parameters in units of 1e9
  CHECK(b["gradients"].get<double>() == Approx(4 * w));
  CHECK(b["optimizer_states"].get<double>() == Approx(12 * w / 16));
}

TEST_CASE("Memory: 1-bit LAMB on BERT-XLarge at 64 per 80 GB A100 fits - SLAMB Fig. 4d ran it", "[cli]")
{
  // 2.8e9 parameters: 16 bytes of states + 1-bit LAMB's 2 + 1/64 persistent copies (8.06 bytes) = 67.4 GB; the
  // step's temporary momentum copy (11.2 GB) peaks above the recomputed activations (~3.2 GB): 78.6 GB <= 80 GB.
  // Without recomputation the 64-sample activations (~23 GB) would not fit.
  const auto m = memory_of("--topology a100x8-ib100 --workload bert-xl --algorithm onebit-lamb --gpus 64 "
                           "--micro-batch 64 --global-batch 4096");
  CHECK(m["fits"] == "with activation recomputation");
  CHECK(m["gb_with_recomputation"].get<double>() == Approx(2.8 * (16 + 4 * (2 + 1.0 / 64) + 4)).epsilon(1e-9));
}
