// Workload presets and loader: every preset loads, GPT sizes and FLOPs follow their closed forms, a bad field
// is one line naming the file and JSON path, and find_compute / find_optimizer pick the intended profile.
#include "sim/model/Workload.hpp"
#include "io/JsonInput.hpp"
#include "tests/support/InputErrors.hpp"
#include "tests/support/RunCcsim.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>

using ccsim::io::InputError;
using ccsim::sim::load_workload;
using ccsim::sim::Workload;
using ccsim::test::message_of;
using ccsim::test::write_temp_file;

namespace {

// A minimal valid workload with one extra JSON fragment spliced into the top-level object. Its FLOPs are what a
// dense model of its size trains with: 6 x 1000 x 16 + 12 x 16^2 x 2 x 8 = 145,152.
std::string workload_text(const std::string& extra)
{
  return R"({"family": "gpt", "params": 1000, "layers": 2, "hidden": 8, "seq_len": 16, "tensors": 4,
             "flops_per_sample": 145152)" +
         (extra.empty() ? std::string() : ", " + extra) + "}";
}

Workload preset(const std::string& name)
{
  return load_workload(ccsim::io::resolve_preset("workloads", name, "--workload"));
}
} // namespace

TEST_CASE("Workload: all 13 docs/design/DESIGN.md presets load", "[sim]")
{
  // docs/design/DESIGN.md "Presets" fixes these names; each must load through the strict loader.
  for (const char* name : {"bert-base", "bert-large", "bert-xl", "swin-b", "gpt-125m", "gpt-350m", "gpt-1.3b",
                           "gpt-2.7b", "gpt-6.7b", "gpt-13b", "gpt-18b", "gpt2-xl", "deberta-v2-xxl"}) {
    INFO(name);
    const Workload w = preset(name);
    CHECK(w.params > 0);
    CHECK(w.flops_per_sample > 0);
    for (const auto& p : w.compute)
      CHECK(!p.source.empty()); // every calibrated compute time names its paper table
  }
}

TEST_CASE("Workload: GPT FLOPs per sample follow Megatron-LM's formula", "[sim]")
{
  // Narayanan et al. 2021 (Megatron-LM, appendix "FLOPs"): per layer the forward pass costs 24 s h^2 + 4 s^2 h
  // per sample, the logit layer 2 s h V; forward + backward without recomputation is 3x the forward:
  // 72 s l h^2 (1 + s/(6h) + V/(12 l h)). Recomputed here from the preset's own shape; tolerance 1e-6.
  for (const char* name : {"gpt-125m", "gpt-350m", "gpt-1.3b", "gpt-2.7b", "gpt-6.7b", "gpt-13b", "gpt-18b",
                           "gpt2-xl"}) {
    INFO(name);
    const Workload w = preset(name);
    const double s = w.seq_len, l = w.layers, h = w.hidden, v = w.vocab;
    const double flops = 72 * s * l * h * h * (1 + s / (6 * h) + v / (12 * l * h));
    CHECK(w.flops_per_sample == Approx(flops).epsilon(1e-6));
  }
}

TEST_CASE("Workload: GPT parameter counts match the transformer closed form", "[sim]")
{
  // Per layer 12 h^2 + 13 h (QKV, projection, two FFN matrices with biases, two LayerNorms), plus token and
  // position embeddings (V + s) h and a final LayerNorm. Presets may round the vocabulary (padding to a
  // multiple of 128 or the model card's published count), so the tolerance is 1 %.
  for (const char* name : {"gpt-125m", "gpt-350m", "gpt-1.3b", "gpt-2.7b", "gpt-6.7b", "gpt-13b", "gpt-18b",
                           "gpt2-xl"}) {
    INFO(name);
    const Workload w = preset(name);
    const double l = w.layers, h = w.hidden;
    const double params = l * (12 * h * h + 13 * h) + (w.vocab + w.seq_len) * h + 2 * h;
    CHECK(static_cast<double>(w.params) == Approx(params).epsilon(0.01));
  }
}

TEST_CASE("load_workload: a negative layer count is one line naming file and path", "[sim]")
{
  const auto file = write_temp_file("neg-layers.json", R"({"family": "gpt", "params": 1000, "layers": -3,
      "hidden": 8, "seq_len": 16, "tensors": 4, "flops_per_sample": 1e9})");
  const std::string msg = message_of([&] { load_workload(file); });
  CHECK(msg == file + ": /layers: must be >= 1 and <= 100000 (got -3)");
  CHECK(msg.find('\n') == std::string::npos);
}

TEST_CASE("load_workload: a misspelt compute field is rejected at its array index", "[sim]")
{
  const auto file = write_temp_file(
      "typo-compute.json",
      workload_text(R"("compute": [{"gpu": "V100", "micro_batch": 4, "forward_ms": 1, "backward_ms": 2,
                       "source": "t"}, {"gpu": "V100", "micro_batch": 8, "forwrd_ms": 1, "backward_ms": 2,
                       "source": "t"}])"));
  const std::string msg = message_of([&] { load_workload(file); });
  CHECK_THAT(msg, Catch::StartsWith(file + ": /compute/1/forwrd_ms: unknown field"));
  CHECK(msg.find('\n') == std::string::npos);
}

TEST_CASE("load_workload: a compute profile without a source is rejected", "[sim]")
{
  // docs/design/DESIGN.md "Calibration and validation": every calibrated number carries its source.
  const auto file = write_temp_file(
      "no-source.json",
      workload_text(R"("compute": [{"gpu": "V100", "micro_batch": 4, "forward_ms": 1, "backward_ms": 2}])"));
  CHECK(message_of([&] { load_workload(file); }) == file + ": /compute/0/source: missing required field");
}

TEST_CASE("load_workload: an unknown family lists the accepted ones", "[sim]")
{
  const auto file = write_temp_file("family.json", R"({"family": "rnn", "params": 1000, "layers": 2, "hidden": 8,
      "seq_len": 16, "tensors": 4, "flops_per_sample": 1e9})");
  const std::string msg = message_of([&] { load_workload(file); });
  CHECK_THAT(msg, Catch::StartsWith(file + ": /family:"));
  CHECK(msg.find("rnn") != std::string::npos);
}

TEST_CASE("Workload: find_compute matches GPU and micro-batch and seq_len and tp exactly", "[sim]")
{
  const auto file = write_temp_file(
      "profiles.json",
      workload_text(R"("compute": [
        {"gpu": "V100", "micro_batch": 16, "forward_ms": 10, "backward_ms": 20, "source": "a"},
        {"gpu": "V100", "micro_batch": 64, "forward_ms": 40, "backward_ms": 80, "source": "b"},
        {"gpu": "A100", "micro_batch": 16, "forward_ms": 4, "backward_ms": 8, "source": "c"},
        {"gpu": "A100", "micro_batch": 16, "tp": 4, "forward_ms": 1.5, "backward_ms": 3, "source": "d"},
        {"gpu": "V100", "micro_batch": 16, "seq_len": 32, "forward_ms": 21, "backward_ms": 42, "source": "e"}])"));
  const Workload w = load_workload(file);
  // seq_len omitted in a profile means the workload's (16); times are stored in seconds.
  auto p = w.find_compute("V100", 16, 16, 1);
  REQUIRE(p);
  CHECK(p->source == "a");
  CHECK(p->forward_s == Approx(0.010));
  CHECK(p->backward_s == Approx(0.020));
  CHECK(w.find_compute("V100", 64, 16, 1)->source == "b");
  CHECK(w.find_compute("A100", 16, 16, 1)->source == "c");
  CHECK(w.find_compute("A100", 16, 16, 4)->source == "d");
  CHECK(w.find_compute("V100", 16, 32, 1)->source == "e");
  // No interpolation: an unmeasured micro-batch, GPU or tp gives nothing (the caller falls back to FLOPs).
  CHECK_FALSE(w.find_compute("V100", 32, 16, 1));
  CHECK_FALSE(w.find_compute("H800", 16, 16, 1));
  CHECK_FALSE(w.find_compute("V100", 16, 16, 2));
}

TEST_CASE("Workload: find_compute prefers the profile measured on the same software stack", "[sim]")
{
  // bert-large: 1-bit LAMB Table 5 (DeepSpeed, 96.0 ms forward per micro-batch of 64 on V100) and SLAMB
  // Table 12 (PyTorch, 0.323 s per micro-batch split 1:2 -> 107.7 ms forward) are both V100, micro-batch 64.
  const Workload w = preset("bert-large");
  const auto any = w.find_compute("V100", 64, 128, 1);
  REQUIRE(any);
  CHECK(any->software.empty());
  CHECK(any->forward_s == Approx(0.0960).epsilon(0.01));
  const auto torch = w.find_compute("V100", 64, 128, 1, "pytorch");
  REQUIRE(torch);
  CHECK(torch->software == "pytorch");
  CHECK(torch->forward_s == Approx(0.1077).epsilon(0.01));
  // A stack without its own profile falls back to the stack-free one.
  CHECK(w.find_compute("V100", 64, 128, 1, "deepspeed")->software.empty());
}

TEST_CASE("Workload: find_optimizer tries name at software before the plain name", "[sim]")
{
  const auto file = write_temp_file(
      "optim.json", workload_text(R"("optimizer_s": {"source": "t", "V100": {"lamb": 0.5, "lamb@pytorch": 0.9}})"));
  const Workload w = load_workload(file);
  CHECK(*w.find_optimizer("V100", "lamb") == Approx(0.5));
  CHECK(*w.find_optimizer("V100", "lamb", "pytorch") == Approx(0.9));
  CHECK(*w.find_optimizer("V100", "lamb", "deepspeed") == Approx(0.5));
  CHECK_FALSE(w.find_optimizer("V100", "adam"));
  CHECK_FALSE(w.find_optimizer("A100", "lamb"));
}

TEST_CASE("load_workload: a batch that grows with dp excludes a fixed batch and needs a micro-batch", "[sim]")
{
  const auto both = write_temp_file("two-rules.json", workload_text(R"("defaults": {"global_batch": 64,
      "micro_batch": 1, "grad_accumulation": 1})"));
  CHECK(message_of([&] { load_workload(both); }) ==
        both + ": /defaults/grad_accumulation: a batch that grows with data parallelism (grad_accumulation) excludes "
               "a fixed global_batch or micro_batches: give one rule");
  const auto none = write_temp_file("no-micro.json", workload_text(R"("defaults": {"grad_accumulation": 2})"));
  CHECK_THAT(message_of([&] { load_workload(none); }),
             Catch::StartsWith(none + ": /defaults/grad_accumulation: needs defaults.micro_batch"));
  // SDP4Bit's throughput models carry its run rule (Appendix B: accumulation 1), not a fixed batch.
  for (const char* name : {"gpt-1.3b", "gpt-2.7b", "gpt-6.7b", "gpt-13b", "gpt-18b"}) {
    INFO(name);
    const auto w = preset(name);
    CHECK(w.grad_accumulation == 1);
    CHECK(w.global_batch == 0);
    CHECK(w.micro_batch == 1);
  }
}

TEST_CASE("load_workload: defaults.pipeline_p2p is blocking unless it says overlapped", "[sim]")
{
  // Megatron-LM's and DeepSpeed's pipeline schedules wait on every exchange (sim::PipelineComm::blocking_sends); a
  // workload whose stack sends asynchronously says so. Llama 3 (§3.3.2: asynchronous point-to-point in PP) does.
  CHECK_FALSE(load_workload(write_temp_file("p2p-absent.json", workload_text(""))).pipeline_p2p_overlapped);
  CHECK_FALSE(load_workload(write_temp_file("p2p-blocking.json",
                                            workload_text(R"("defaults": {"pipeline_p2p": "blocking"})")))
                  .pipeline_p2p_overlapped);
  CHECK(load_workload(write_temp_file("p2p-overlapped.json",
                                      workload_text(R"("defaults": {"pipeline_p2p": "overlapped"})")))
            .pipeline_p2p_overlapped);
  const auto bad = write_temp_file("p2p-bad.json", workload_text(R"("defaults": {"pipeline_p2p": "async"})"));
  CHECK_THAT(message_of([&] { load_workload(bad); }), Catch::StartsWith(bad + ": /defaults/pipeline_p2p: "));
  CHECK(message_of([&] { load_workload(bad); }).find('\n') == std::string::npos);
  const auto typed = write_temp_file("p2p-typed.json", workload_text(R"("defaults": {"pipeline_p2p": true})"));
  CHECK_THAT(message_of([&] { load_workload(typed); }), Catch::StartsWith(typed + ": /defaults/pipeline_p2p: "));
  CHECK(preset("llama3.1-405b").pipeline_p2p_overlapped);
  CHECK_FALSE(preset("llama2-70b").pipeline_p2p_overlapped);
}

TEST_CASE("load_workload: flops_per_sample beyond 1000 x a dense model of its size is one line - up to it loads",
          "[sim]")
{
  // The fixture's dense training FLOPs: 6 x 1000 x 16 + 12 x 16^2 x 2 x 8 = 145,152 per sample, so the bound is
  // 145,152,000 (io/Limits.hpp's kMaxFlopsOverDense = 1000).
  auto with_flops = [](const std::string& flops) {
    std::string text = workload_text("");
    text.replace(text.find("145152"), 6, flops);
    return write_temp_file("flops-" + flops + ".json", text);
  };
  CHECK(load_workload(with_flops("145152000")).flops_per_sample == 145152000);
  const auto over = with_flops("145153000");
  CHECK(message_of([&] { load_workload(over); }) ==
        over + ": /flops_per_sample: 1.45e+08 is more than 1000 x the training FLOPs of a dense model of this size, 6 x "
               "params x seq_len + 12 x seq_len^2 x layers x hidden = 1.45e+05: not a physical value");
  // The issue's case: 2^64 - 1 FLOPs per sample, in range alone, a step of 7.5 years with BERT-Large.
  const auto huge = with_flops("18446744073709551615");
  CHECK_THAT(message_of([&] { load_workload(huge); }), Catch::Contains("/flops_per_sample: 1.84e+19 is more than"));
}
