// Issue 41's parallelism options on `ccsim simulate`, each against its closed form: the interleaved 1F1B schedule
// (--vpp), the recomputation modes (--recompute none|selective|full), the memory headroom, and tokens per second.
#include "tests/support/RunCcsim.hpp"
#include "tests/support/SimulateJson.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

using ccsim::test::line_count;
using ccsim::test::run_ccsim;
using ccsim::test::simulate_json;

namespace {
// Llama-2-7B (32 layers) in 4 pipeline stages on one H100 node, tp 1, dp 1: no tensor- or data-parallel traffic, so
// the step is the pipeline's schedule plus the optimizer. 8 micro-batches of 1.
const std::string kPipeline = "--topology h100x8-ib400x8 --workload llama2-7b --algorithm megatron-dp --gpus 4 --tp 1 "
                              "--pp 4 --global-batch 8 --micro-batch 1";

double num(const nlohmann::json& j) { return j.get<double>(); }

/// SimGrid rounds every event's date to its timing precision (`precision/timing`, 1e-9 s), so a step of a few dozen
/// sleeps may differ from the closed form by a few nanoseconds.
constexpr double kClockNs = 1e-8;

/// One micro-batch's forward and backward on one stage, f + b, in seconds.
double micro_batch_s(const nlohmann::json& r)
{
  return (num(r["config"]["forward_ms_per_micro_batch"]) + num(r["config"]["backward_ms_per_micro_batch"])) / 1e3;
}

/// One pipeline message each way, d_f + d_b, in seconds.
double messages_s(const nlohmann::json& r)
{
  const auto& phase = r["phases"][0]["breakdown"];
  return (num(phase["pipeline_forward_comm_ms"]) + num(phase["pipeline_backward_comm_ms"])) / 1e3;
}

/// The step's comm-free critical path: the step less what the pipeline sends left exposed and the optimizer step.
double comm_free_s(const nlohmann::json& r)
{
  return num(r["step_time_s"]) - num(r["breakdown"]["exposed_comm_s"]) - num(r["breakdown"]["optimizer_s"]);
}
} // namespace

TEST_CASE("Parallelism: interleaved 1F1B cuts the bubble to (pp - 1)(f + b) / vpp", "[cli]")
{
  // Narayanan et al. 2021 §2.2.2: with m micro-batches of forward f and backward b per stage, plain 1F1B takes
  // (m + pp - 1)(f + b) and v chunks per stage (m + (pp - 1) / v)(f + b), transfers free. Here m = 8, pp = 4.
  // Megatron's sends block their stage (PipelineComm::blocking_sends): each of the m v units waits for its own
  // messages, d = d_f + d_b, which is all the sends' time (exposed = comm), and the fill path's pp - 2 boundaries
  // beyond the first stage's stay in the step as well: (m v + pp - 2) d in all (tests/sim/PipelineClosedForm_test.cpp).
  for (const int v : {1, 2, 4}) {
    INFO("vpp " << v);
    const auto r    = simulate_json(kPipeline + " --vpp " + std::to_string(v));
    const double fb = micro_batch_s(r);
    const double d  = messages_s(r);
    CHECK(r["config"]["grad_accumulation"] == 8);
    CHECK(num(r["breakdown"]["exposed_comm_s"]) == Approx(num(r["breakdown"]["comm_s"])).epsilon(1e-12));
    CHECK(num(r["breakdown"]["comm_s"]) == Approx(8 * v * d).epsilon(1e-9));
    CHECK(comm_free_s(r) == Approx((8 + 3.0 / v) * fb + 2 * d).margin(kClockNs));
    CHECK(num(r["breakdown"]["compute_s"]) == Approx(8 * fb).epsilon(1e-12)); // the work itself does not change
    CHECK(r["config"].value("vpp", 1) == v);
  }
}

TEST_CASE("Parallelism: Llama 3's layout interleaves 126 layers on 16 stages, the embedding and output a slot each",
          "[cli]")
{
  // The Llama 3 paper §3.3.2: the first and the last stage hold one layer fewer, their first (last) chunk the embedding
  // (the output layer) alone, so 126 + 2 slots make 16 x 8 chunks of one layer. The pace is an inner stage of 8 layers
  // (f + b per micro-batch), and the bubble is (pp - 1)(f + b) / v as with even layers: m = 32 micro-batches, pp 16.
  const std::string base = "--topology h100x8-ib400x8 --workload llama3.1-405b --algorithm megatron-dp --gpus 128 "
                           "--tp 8 --pp 16 --global-batch 32 --micro-batch 1";
  for (const int v : {1, 2, 4, 8}) {
    INFO("vpp " << v);
    const auto r    = simulate_json(base + " --vpp " + std::to_string(v));
    const double fb = micro_batch_s(r);
    CHECK(r["config"].value("vpp", 1) == v);
    CHECK(comm_free_s(r) == Approx((32 + 15.0 / v) * fb).epsilon(1e-9));
  }
  // 128 slots do not make 16 x 3 chunks; the message says which counts were tried.
  const auto three = run_ccsim("simulate " + base + " --vpp 3 --quiet");
  CHECK(three.exit_code == 2);
  CHECK(line_count(three.err) == 1);
  CHECK_THAT(three.err, Catch::Contains("126 layers") && Catch::Contains("16 x 3") && Catch::Contains("126 + 2"));
}

TEST_CASE("Parallelism: interleaving sends vpp times the messages between neighbouring stages", "[cli]")
{
  // Each micro-batch crosses every stage boundary once per chunk and direction: v x (2 m) messages of the same
  // size per boundary. All four stages sit in one node, so they are intra-node bytes, and nothing else moves.
  const auto plain       = simulate_json(kPipeline);
  const auto interleaved = simulate_json(kPipeline + " --vpp 4");
  REQUIRE(num(plain["bytes_per_gpu"]["intra_node"]) > 0);
  CHECK(num(interleaved["bytes_per_gpu"]["intra_node"]) == Approx(4 * num(plain["bytes_per_gpu"]["intra_node"])));
  CHECK(num(interleaved["breakdown"]["comm_s"]) > 3 * num(plain["breakdown"]["comm_s"]));
}

TEST_CASE("Parallelism: interleaving keeps 1 + (pp - 1) / (pp vpp) times 1F1B's activations", "[cli]")
{
  // Korthikanti et al. 2022 §4.2.3: the first stage holds pp micro-batches of its layers, times 1 + (pp - 1) / (pp v)
  // with v chunks. The fp32 logits are the last stage's and do not scale. pp = 4, v = 2: factor 1 + 3 / 8.
  const auto plain       = simulate_json(kPipeline + " --vpp 1")["memory"]["breakdown_gb"];
  const auto interleaved = simulate_json(kPipeline + " --vpp 2")["memory"]["breakdown_gb"];
  // Llama-2-7B's logits: 4 s b V / t = 4 x 4096 x 1 x 32000 bytes.
  const double logits_gb = 4.0 * 4096 * 32000 / 1e9;
  CHECK(num(interleaved["activations"]) - logits_gb ==
        Approx((num(plain["activations"]) - logits_gb) * (1 + 3.0 / 8)).epsilon(1e-9));
}

TEST_CASE("Parallelism: --pipeline-p2p overlapped leaves the fill path's sends, blocking every unit's", "[cli]")
{
  // The same pipeline as above (m 8, pp 4): overlapped sends put only the fill path's (pp - 1)(d_f + d_b) on the
  // step beyond the comm-free (m + pp - 1)(f + b); blocking ones (m + pp - 2)(d_f + d_b)
  // (tests/sim/PipelineClosedForm_test.cpp). The workload (llama2-7b) says nothing, so blocking is the default.
  const auto blocking   = simulate_json(kPipeline);
  const auto overlapped = simulate_json(kPipeline + " --pipeline-p2p overlapped");
  CHECK(blocking["config"]["pipeline_p2p"] == "blocking");
  CHECK(overlapped["config"]["pipeline_p2p"] == "overlapped");
  const double d    = messages_s(overlapped);
  const double fb   = micro_batch_s(overlapped);
  const double optimizer = num(overlapped["breakdown"]["optimizer_s"]);
  CHECK(num(overlapped["step_time_s"]) - optimizer == Approx(11 * fb + 3 * d).margin(kClockNs));
  CHECK(num(blocking["step_time_s"]) - optimizer == Approx(11 * fb + 10 * d).margin(kClockNs));
  CHECK(num(overlapped["breakdown"]["exposed_comm_s"]) == Approx(3 * d).epsilon(1e-9));
  // A data-parallel run without a pipeline has nothing to say; the pipeline algorithms run GPipe and refuse it.
  CHECK_FALSE(simulate_json("--topology h100x8-ib400x8 --workload llama2-7b --algorithm megatron-dp --gpus 4 --tp 1 "
                            "--pp 1 --global-batch 8 --micro-batch 1")["config"]
                  .contains("pipeline_p2p"));
  const auto gpipe = run_ccsim("simulate --topology h100x8-ib400x8 --workload llama2-7b --algorithm aq-sgd --gpus 4 "
                               "--pp 4 --global-batch 8 --micro-batch 1 --pipeline-p2p blocking --quiet");
  CHECK(gpipe.exit_code == 2);
  CHECK(line_count(gpipe.err) == 1);
  CHECK_THAT(gpipe.err, Catch::Contains("--pipeline-p2p") && Catch::Contains("GPipe"));
  const auto bad = run_ccsim("simulate " + kPipeline + " --pipeline-p2p async --quiet");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("--pipeline-p2p") && Catch::Contains("blocking, overlapped"));
  // advise passes the flag to the algorithms it applies to and ranks the pipeline algorithms without it.
  const auto advised = run_ccsim("advise --topology v100x1-wan --workload gpt2-xl --gpus 8 --pipeline-p2p overlapped "
                                 "--quiet --format json");
  REQUIRE(advised.exit_code == 0);
  const auto ranking = nlohmann::json::parse(advised.out)["ranking"];
  CHECK(ranking.size() == 3); // aq-sgd, fp32-pipeline, directq
  for (const auto& row : ranking)
    CHECK(row["samples_per_s"].get<double>() > 0);
}

TEST_CASE("Parallelism: --vpp that cannot interleave is a one-line error", "[cli]")
{
  const auto no_pipeline = run_ccsim("simulate --topology h100x8-ib400x8 --workload llama2-7b --algorithm megatron-dp "
                                     "--gpus 4 --vpp 2 --quiet");
  CHECK(no_pipeline.exit_code == 2);
  CHECK(line_count(no_pipeline.err) == 1);
  CHECK_THAT(no_pipeline.err, Catch::Contains("--vpp") && Catch::Contains("--pp >= 2"));
  // 32 layers do not split into 4 x 3 whole chunks.
  const auto uneven = run_ccsim("simulate " + kPipeline + " --vpp 3 --quiet");
  CHECK(uneven.exit_code == 2);
  CHECK(line_count(uneven.err) == 1);
  CHECK_THAT(uneven.err, Catch::Contains("32 layers") && Catch::Contains("4 x 3"));
  const auto gpipe = run_ccsim("simulate --topology h100x8-ib400x8 --workload llama2-7b --algorithm aq-sgd --gpus 4 "
                               "--pp 4 --global-batch 8 --micro-batch 1 --vpp 2 --quiet");
  CHECK(gpipe.exit_code == 2);
  CHECK_THAT(gpipe.err, Catch::Contains("GPipe"));
}

TEST_CASE("Parallelism: full recomputation re-runs each layer's two forward all-reduces (6 per layer, not 4)", "[cli]")
{
  // Issue 41's example: Llama-2-7B at tp 4 on one H100 node (dp 2). The recomputed forward of every layer repeats its
  // two tensor-parallel all-reduces (Megatron's checkpointed function holds them): 2 more per layer and micro-batch,
  // each of b s h 2-byte activations. A ring all-reduce of S bytes moves 2 (n - 1) / n S per GPU (n = tp = 4), so the
  // intra-node bytes grow by layers x accumulation x 2 x 2 (3/4) x b s h 2.
  const std::string base = "--topology h100x8-ib400x8 --workload llama2-7b --algorithm megatron-dp --gpus 8 --tp 4";
  const auto none        = simulate_json(base + " --recompute none");
  const auto full        = simulate_json(base + " --recompute");
  const double accum = num(none["config"]["grad_accumulation"]), b = num(none["config"]["micro_batch"]);
  const double extra = 32 * accum * 2 * (2 * 3.0 / 4) * b * 4096 * 4096 * 2;
  CHECK(full["memory"]["activation_recomputation"] == true);
  CHECK(num(full["bytes_per_gpu"]["intra_node"]) - num(none["bytes_per_gpu"]["intra_node"]) ==
        Approx(extra).epsilon(1e-6));
  CHECK(num(full["breakdown"]["comm_s"]) > num(none["breakdown"]["comm_s"]));
  CHECK(num(full["breakdown"]["compute_s"]) > num(none["breakdown"]["compute_s"]));
  // The bare flag before another flag is full too; a word after it is its value, checked as one.
  const auto bare = run_ccsim("simulate " + base + " --recompute --quiet --format json");
  REQUIRE(bare.exit_code == 0);
  CHECK(nlohmann::json::parse(bare.out)["bytes_per_gpu"] == full["bytes_per_gpu"]);
  const auto wrong = run_ccsim("simulate " + base + " --recompute partial --quiet");
  CHECK(wrong.exit_code == 2);
  CHECK(line_count(wrong.err) == 1);
  CHECK_THAT(wrong.err, Catch::Contains("--recompute") && Catch::Contains("none, selective, full"));
}

TEST_CASE("Parallelism: selective recomputation re-runs the attention core only, without its memory", "[cli]")
{
  // Korthikanti et al. 2022 §5: the attention core (QK^T, softmax, dropout, attention over V) is recomputed, so its
  // score matrices are not stored; no collective is repeated (the core has none).
  const std::string base = "--topology h100x8-ib400x8 --workload llama2-7b --algorithm megatron-dp --gpus 8 --tp 4";
  const auto none        = simulate_json(base + " --recompute none");
  const auto selective   = simulate_json(base + " --recompute selective");
  const auto full        = simulate_json(base + " --recompute full");
  CHECK(num(selective["bytes_per_gpu"]["intra_node"]) == Approx(num(none["bytes_per_gpu"]["intra_node"])));
  CHECK(num(selective["breakdown"]["compute_s"]) > num(none["breakdown"]["compute_s"]));
  CHECK(num(selective["breakdown"]["compute_s"]) < num(full["breakdown"]["compute_s"]));
  CHECK(selective["operators"]["recompute"] == "selective");
  CHECK(num(selective["memory"]["breakdown_gb"]["activations"]) <=
        num(none["memory"]["breakdown_gb"]["activations"]));
  const auto no_architecture = run_ccsim("simulate --topology v100x1-native --workload bert-large --algorithm lamb "
                                         "--gpus 1 --recompute selective --quiet");
  CHECK(no_architecture.exit_code == 2);
  CHECK_THAT(no_architecture.err, Catch::Contains("--recompute") && Catch::Contains("architecture"));
}

TEST_CASE("Parallelism: an explicit --recompute selective that fits only with full recomputation is refused, not upgraded",
          "[cli]")
{
  // Llama-2-7B at tp 4 needs s GB per GPU with selective recomputation and f < s GB with full. A headroom that leaves
  // s - 0.1 GB for the model fits only full recomputation: the user's selective is refused in one line (as none is),
  // and with --allow-oom it runs selective as asked. Before, it silently ran full recomputation.
  const std::string base = "--topology h100x8-ib400x8 --workload llama2-7b --algorithm megatron-dp --gpus 8 --tp 4 "
                           "--recompute selective";
  const auto roomy       = simulate_json(base)["memory"];
  const double need = num(roomy["gb_without_recomputation"]), need_full = num(roomy["gb_with_recomputation"]);
  const double cap  = num(roomy["capacity_gb"]);
  REQUIRE(need_full < need - 0.2);
  const std::string tight = " --memory-headroom-gb " + std::to_string(cap - need + 0.1);
  const auto refused      = run_ccsim("simulate " + base + tight + " --quiet");
  CHECK(refused.exit_code == 2);
  CHECK(line_count(refused.err) == 1);
  CHECK_THAT(refused.err, Catch::Contains("--recompute: selective") && Catch::Contains("--recompute full"));
  const auto as_asked = simulate_json(base + tight + " --allow-oom");
  CHECK(as_asked["operators"]["recompute"] == "selective");
  CHECK(as_asked["memory"]["activation_recomputation"] == false);
  const auto full = simulate_json(base.substr(0, base.find(" --recompute")) + " --recompute full" + tight);
  CHECK(full["operators"]["recompute"] == "full");
}

TEST_CASE("Parallelism: the memory headroom is kept from the model - a run that fills the GPU does not fit", "[cli]")
{
  // BERT-Large with LAMB on one 16 GB V100 needs m GB without recomputation (and less with it). A headroom that
  // leaves m - 0.1 GB for the model makes it fit only with recomputation; one that leaves m + 0.1 GB keeps it fitting.
  const std::string base = "--topology v100x1-native --workload bert-large --algorithm lamb --gpus 1";
  const auto plain       = simulate_json(base)["memory"];
  REQUIRE(plain["fits"] == "yes");
  const double need = num(plain["gb_without_recomputation"]), cap = num(plain["capacity_gb"]);
  const auto tight  = simulate_json(base + " --memory-headroom-gb " + std::to_string(cap - need + 0.1))["memory"];
  CHECK(tight["fits"] == "with activation recomputation");
  CHECK(num(tight["headroom_gb"]) == Approx(cap - need + 0.1));
  const auto roomy = simulate_json(base + " --memory-headroom-gb " + std::to_string(cap - need - 0.1))["memory"];
  CHECK(roomy["fits"] == "yes");
  // --recompute none refuses the tight run rather than recomputing behind the user's back.
  const auto refused = run_ccsim("simulate " + base + " --quiet --recompute none --memory-headroom-gb " +
                                 std::to_string(cap - need + 0.1));
  CHECK(refused.exit_code == 2);
  CHECK(line_count(refused.err) == 1);
  CHECK_THAT(refused.err, Catch::Contains("--recompute") && Catch::Contains("headroom"));
}

TEST_CASE("Parallelism: simulate prints tokens per second beside samples per second", "[cli]")
{
  // The metrics themselves are tested against their closed form in tests/api/Metrics_test.cpp.
  const auto table = run_ccsim("simulate " + kPipeline + " --quiet");
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.out, Catch::Contains("tokens/s") && Catch::Contains("1T tokens in"));
}
