// Issue 41's ZeRO stages on `ccsim simulate`: the FSDP / ZeRO-3 user's Llama-3-8B job on 4 x 8 A100-40GB over
// 2 x 100 GbE fits at tp 1 and sends exactly the closed form's bytes; --fsdp names the same stages; a stage an
// algorithm does not run is a one-line error naming it and the stages it runs.
#include "tests/support/RunCcsim.hpp"
#include "tests/support/SimulateJson.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

using ccsim::test::line_count;
using ccsim::test::run_ccsim;
using ccsim::test::simulate_json;

namespace {
// The user's job: sequence 4,096, global batch 512 in micro-batches of 1 on dp 32: 16 micro-batches per step.
const std::string kUser = "--topology a100x8-roce100x2 --workload llama3-8b --gpus 32 --tp 1 --global-batch 512 "
                          "--micro-batch 1 --param seq_len=4096";

double num(const nlohmann::json& j) { return j.get<double>(); }
} // namespace

TEST_CASE("ZeroStages: the FSDP user's Llama-3-8B fits at ZeRO-3 and sends 3 gathers' worth per micro-batch", "[cli]")
{
  const auto r = simulate_json(kUser + " --algorithm megatron-dp --zero 3");
  CHECK(r["config"]["zero_stage"] == 3);
  CHECK(r["config"]["grad_accumulation"] == 16);
  CHECK(r["memory"]["fits"] == "yes");
  CHECK(num(r["memory"]["gb_without_recomputation"]) < 40);
  // Per micro-batch each GPU gathers the bf16 weights twice and reduce-scatters the gradients in the workload's
  // dtype (llama3-8b: fp32, grad_bytes 4), each sending (dp - 1) / dp of its buffer (ring all-gather and
  // reduce-scatter, nccl-tests doc/PERFORMANCE.md): 16 x 8,030,261,248 x (2 + 2 + 4) x 31 / 32 = 995,752,394,752
  // bytes per GPU per step, across nodes and inside them together.
  const double sent = num(r["bytes_per_gpu"]["inter_node"]) + num(r["bytes_per_gpu"]["intra_node"]);
  CHECK(sent == Approx(995752394752.0).epsilon(1e-9));
  // Without --zero the algorithm runs what it always ran (Megatron's distributed optimizer, stage 1): the whole bf16
  // model and its fp32 gradients on every GPU do not fit in 40 GB.
  const auto plain = run_ccsim("simulate " + kUser + " --algorithm megatron-dp --quiet");
  CHECK(plain.exit_code == 2);
  CHECK_THAT(plain.err, Catch::Contains("--zero 3"));
}

TEST_CASE("ZeroStages: --fsdp full_shard, shard_grad_op and no_shard are --zero 3, 2 and 0", "[cli]")
{
  const std::string small = "--topology h100x8-ib400x8 --workload llama2-7b --gpus 8 --tp 1 --global-batch 16 "
                            "--micro-batch 1 --param seq_len=1024";
  CHECK(simulate_json(small + " --algorithm megatron-dp --fsdp full_shard")["bytes_per_gpu"] ==
        simulate_json(small + " --algorithm megatron-dp --zero 3")["bytes_per_gpu"]);
  CHECK(simulate_json(small + " --algorithm megatron-dp --fsdp shard_grad_op")["config"]["zero_stage"] == 2);
  CHECK(simulate_json(small + " --algorithm adam --fsdp no_shard --allow-oom")["config"]["zero_stage"] == 0);
  const auto both = run_ccsim("simulate " + small + " --algorithm megatron-dp --zero 3 --fsdp full_shard --quiet");
  CHECK(both.exit_code == 2);
  CHECK(line_count(both.err) == 1);
}

TEST_CASE("ZeroStages: a stage the algorithm does not run is a one-line error naming the stages it runs", "[cli]")
{
  const auto sdp4bit = run_ccsim("simulate " + kUser + " --algorithm sdp4bit --zero 3 --quiet");
  CHECK(sdp4bit.exit_code == 2);
  CHECK(line_count(sdp4bit.err) == 1);
  CHECK_THAT(sdp4bit.err, Catch::Contains("sdp4bit") && Catch::Contains("supports: 1, 2"));
  const auto adam = run_ccsim("simulate " + kUser + " --algorithm adam --zero 1 --quiet");
  CHECK(adam.exit_code == 2);
  CHECK_THAT(adam.err, Catch::Contains("adam") && Catch::Contains("supports: 0"));
  // DeepSpeed runs pipelines with ZeRO-1 only.
  const auto pipe = run_ccsim("simulate --topology h100x8-ib400x8 --workload llama2-7b --algorithm megatron-dp "
                              "--gpus 8 --tp 1 --pp 2 --zero 3 --quiet");
  CHECK(pipe.exit_code == 2);
  CHECK(line_count(pipe.err) == 1);
  CHECK_THAT(pipe.err, Catch::Contains("pipeline"));
  const auto range = run_ccsim("simulate " + kUser + " --algorithm megatron-dp --zero 4 --quiet");
  CHECK(range.exit_code == 2);
  CHECK_THAT(range.err, Catch::Contains("--zero"));
}
