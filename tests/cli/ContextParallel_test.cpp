// `simulate --cp` end to end (issue 41): the GPUs split tp x cp x pp x dp, activations per GPU divided by cp, the
// experiment key entering the config hash, and every impossible cp refused in one line naming the flag. The ring's
// closed forms are tests/sim/ContextParallel_test.cpp's; its plan's bytes tests/algorithms/ModelParallelWork_test.cpp's.
#include "api/experiment/ConfigHash.hpp"
#include "tests/support/RunCcsim.hpp"
#include "tests/support/SimulateJson.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

using ccsim::test::line_count;
using ccsim::test::run_ccsim;
using ccsim::test::simulate_json;

namespace {
// Llama-3-8B (sequence 8,192, GQA 32/8) with Megatron's distributed optimizer on H100 nodes, tp 1, pp 1.
const std::string kBase = "--topology h100x8-ib400x8 --workload llama3-8b --algorithm megatron-dp --tp 1 ";

double num(const nlohmann::json& j) { return j.get<double>(); }

/// A run that must fail with exit 2 and one line containing each of `words`.
void refused(const std::string& args, const std::vector<std::string>& words)
{
  const auto r = run_ccsim("simulate --quiet " + args);
  INFO(args << "\n" << r.err);
  CHECK(r.exit_code == 2);
  CHECK(line_count(r.err) == 1);
  for (const auto& w : words)
    CHECK_THAT(r.err, Catch::Contains(w));
}
} // namespace

TEST_CASE("ContextParallel: --cp 2 runs dp = gpus / (tp x cp) with half the activations per GPU", "[cli]")
{
  // 16 GPUs at cp 2 are 8 data-parallel replicas of 2 ranks each, as 8 GPUs at cp 1. Each rank holds 4,096 of a
  // sequence's 8,192 tokens; every activation FlashAttention's layer stores, and the fp32 logits, are linear in the
  // tokens (algorithms/MemoryFootprint.cpp), so the activations are exactly half; the optimizer state, sharded over
  // dp x cp = 16 ranks instead of 8, is half too.
  const auto plain = simulate_json(kBase + "--gpus 8");
  const auto cp    = simulate_json(kBase + "--gpus 16 --cp 2");
  CHECK(cp["config"]["cp"] == 2);
  CHECK(cp["config"]["dp"] == 8);
  CHECK(plain["config"].contains("cp") == false); // written only when > 1
  CHECK(cp["config"]["grad_accumulation"] == plain["config"]["grad_accumulation"]);
  const auto& m1 = plain["memory"]["breakdown_gb"];
  const auto& m2 = cp["memory"]["breakdown_gb"];
  CHECK(num(m2["activations"]) == Approx(num(m1["activations"]) / 2).epsilon(1e-12));
  CHECK(num(m2["optimizer_states"]) == Approx(num(m1["optimizer_states"]) / 2).epsilon(1e-12));
  CHECK(num(m2["weights"]) == Approx(num(m1["weights"])).epsilon(1e-12));
  // The ring's exchange is communication; the compute per micro-batch is about half (attention's work is 1/cp of the
  // causal triangle, FlashAttention's diagonal blocks whole on every rank).
  CHECK(num(cp["breakdown"]["comm_s"]) > num(plain["breakdown"]["comm_s"]));
  CHECK(num(cp["breakdown"]["exposed_comm_s"]) <= num(cp["breakdown"]["comm_s"]));
  CHECK(num(cp["config"]["forward_ms_per_micro_batch"]) ==
        Approx(num(plain["config"]["forward_ms_per_micro_batch"]) / 2).epsilon(0.05));
}

TEST_CASE("ContextParallel: impossible --cp values are one-line errors naming the flag", "[cli]")
{
  // 8,192 tokens do not split into 2 x cp = 6 chunks (Megatron-Core's load-balanced causal split).
  refused(kBase + "--gpus 24 --cp 3", {"--cp: 3", "sequence length 8192", "2 x cp = 6"});
  // The GPUs must split tp x cp x pp (x dp), and cp needs an architecture and an algorithm that runs it.
  refused("--topology h100x8-ib400x8 --workload llama3-8b --algorithm megatron-dp --gpus 12 --tp 4 --cp 2", {"--gpus", "12 GPUs are not divisible by tp x cp x pp = 4 x 2 x 1"});
  refused(kBase + "--gpus 8 --cp 16", {"--cp", "needs more than the 8 GPUs"});
  refused("--topology v100x4-eth40g --workload bert-large --algorithm adam --gpus 8 --cp 2",
          {"--cp: 2", "architecture block"});
  refused("--topology h100x8-ib400x8 --workload llama3-8b --algorithm onebit-adam --gpus 16 --cp 2",
          {"--cp: 2", "onebit-adam does not run context parallelism", "megatron-dp"});
  refused(kBase + "--gpus 16 --cp 0", {"--cp"});
}

TEST_CASE("ContextParallel: sequence parallelism needs the sequence to split 2 x cp x tp ways", "[cli]")
{
  // Llama-3.1-405B is sequence parallel at tp 8: at cp 128 a sequence of 1,024 tokens would split 2 x cp = 256 ways
  // but not 2 x cp x tp = 2,048.
  refused("--topology h100x8-roce400x8 --workload llama3.1-405b --algorithm megatron-dp --gpus 16384 --pp 16 --cp 128 "
          "--param seq_len=1024",
          {"--cp: 128", "sequence length 1024", "2 x cp x tp = 2048", "sequence parallelism"});
}

TEST_CASE("ContextParallel: cp enters the experiment config hash", "[cli]")
{
  ccsim::api::SimulateRequest a;
  a.topology  = "h100x8-ib400x8";
  a.workload  = "llama3-8b";
  a.algorithm = "megatron-dp";
  a.gpus      = 16;
  auto b      = a;
  b.cp        = 2;
  CHECK(ccsim::api::config_hash(b) != ccsim::api::config_hash(a));
  b.cp = 4;
  auto c = a;
  c.cp   = 2;
  CHECK(ccsim::api::config_hash(b) != ccsim::api::config_hash(c));
}

TEST_CASE("ContextParallel: advise takes --cp as given but does not search it", "[cli]")
{
  const auto r = run_ccsim("advise --quiet --topology h100x8-ib400x8 --workload llama3-8b --gpus 16 --cp 2 --search");
  CHECK(r.exit_code == 2);
  CHECK(line_count(r.err) == 1);
  CHECK_THAT(r.err, Catch::Contains("--cp") && Catch::Contains("--search"));
}
