// The papers' convergence claims, each as its paper makes it, over the seeds of the committed evidence
// (workloads/evidence/convergence.json, written by scripts/convergence-evidence.sh from real `ccsim train` runs): a
// claim holds when the compressed method's mean gap to its uncompressed baseline is within the claim's threshold and
// the naive method's whole range over the seeds is worse than the compressed method's (issue 30). Training every seed
// costs minutes per claim on the transformer, so each test checks the claim on the evidence's seeds and reruns the
// first seed of the comparison with the evidence's own command: its final losses must reproduce the file's within
// 3 % (exactly on the machine that wrote it; the same code on another CPU model rounds differently, README).
#include "api/advise/ConvergenceEvidence.hpp"
#include "tests/support/RunCcsim.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>

using ccsim::api::EvidenceRow;
using ccsim::test::run_ccsim;

namespace {
const std::vector<EvidenceRow>& evidence()
{
  static const auto rows =
      ccsim::api::load_convergence_evidence(std::string(CCSIM_SOURCE_DIR) + "/workloads/evidence/convergence.json");
  return rows;
}

const EvidenceRow& row(const std::string& algorithm, const std::string& family, const std::string& proxy)
{
  for (const auto& r : evidence())
    if (r.algorithm == algorithm && r.family == family && r.proxy == proxy)
      return r;
  FAIL("no evidence row for " << algorithm << " / " << family << " on " << proxy);
  throw std::logic_error("unreachable");
}

/// The claim on the evidence's seeds: at least 3 of them, the compressed method's mean gap within the threshold, the
/// naive method's whole range above the compressed method's.
void check_claim(const EvidenceRow& compressed, const EvidenceRow& naive)
{
  INFO(compressed.algorithm << " " << compressed.summary() << "; " << naive.algorithm << " " << naive.summary());
  CHECK(compressed.seeds.size() >= 3);
  CHECK(compressed.seeds == naive.seeds);
  CHECK(compressed.mean_gap() <= compressed.threshold);
  CHECK(naive.min_gap() > compressed.max_gap());
}

/// Reruns the first seed of `any`'s comparison with its own command for `algorithm` alone (on char-gpt the list names
/// the claim, so one compressed method takes the same schedule as its whole comparison) and checks its final loss
/// against the evidence.
void check_rerun(const EvidenceRow& any, const std::string& algorithm, const std::string& extra = "")
{
  std::string cmd  = any.command;
  const auto seed  = cmd.find("--seed SEED");
  const auto list  = cmd.find("--algorithm ");
  REQUIRE(cmd.rfind("build/ccsim train ", 0) == 0);
  REQUIRE(seed != std::string::npos);
  REQUIRE(list != std::string::npos);
  cmd.replace(seed, 11, "--seed " + std::to_string(any.seeds.front()));
  const auto end = cmd.find(' ', list + 12);
  cmd.replace(list + 12, end - list - 12, algorithm);
  const auto r = run_ccsim(cmd.substr(std::string("build/ccsim ").size()) + " --quiet " + extra);
  INFO(cmd << "\n" << r.err);
  REQUIRE(r.exit_code == 0);
  const auto doc = nlohmann::json::parse(r.out);
  const auto& e  = row(algorithm, any.family, any.proxy);
  REQUIRE(e.final_loss.front().has_value() == !doc["final_loss"].is_null());
  if (e.final_loss.front())
    CHECK(doc["final_loss"].get<double>() == Approx(*e.final_loss.front()).epsilon(0.03));
}
} // namespace

TEST_CASE("Convergence claims: the evidence has every claim's rows over at least 3 seeds", "[cli]")
{
  for (const auto& r : evidence()) {
    INFO(r.algorithm << " / " << r.family << " on " << r.proxy);
    CHECK(r.seeds.size() >= 3);
  }
}

namespace {
const std::string kAdam = "data-parallel Adam", kLamb = "data-parallel LAMB",
                  kLargeLamb = "data-parallel LAMB (large batch)", kSharded = "sharded data parallel",
                  kPipeline = "pipeline parallel (pp = 4, fw2/bw4)";
} // namespace

TEST_CASE("Convergence claims: mlp / 1-bit Adam within 3 % of Adam - error-feedback 1-bit gradients with Adam worse",
          "[cli]")
{
  // 1-bit Adam Fig. 1 and Fig. 6: compressing momentum after a variance-freezing warm-up keeps Adam's convergence;
  // compressing gradients that feed Adam's variance does not.
  check_claim(row("onebit-adam", kAdam, "mlp"), row("naive-1bit-adam", kAdam, "mlp"));
  check_rerun(row("adam", kAdam, "mlp"), "onebit-adam");
}

TEST_CASE("Convergence claims: mlp at batch 4096 / 1-bit LAMB and SLAMB within 3 % of LAMB - random-k LAMB worse",
          "[cli]")
{
  // 1-bit LAMB Table 2 and SLAMB Fig. 3a: the same convergence as LAMB at a large batch; SLAMB Fig. 1: random-k
  // sparsified gradients (k = 0.1) converge much slower.
  check_claim(row("onebit-lamb", kLargeLamb, "mlp"), row("randk-lamb", kLargeLamb, "mlp"));
  check_claim(row("slamb", kLargeLamb, "mlp"), row("randk-lamb", kLargeLamb, "mlp"));
  check_rerun(row("lamb", kLargeLamb, "mlp"), "slamb");
}

TEST_CASE("Convergence claims: mlp / SDP4Bit within 1 % of sharded DP - plain 4-bit weights worse", "[cli]")
{
  // SDP4Bit Table 1 / Fig. 6: qWD + TLq-HS keep the baseline's loss; quantizing the weights themselves (qW) does not
  // (§4.1, Counterexample 4.1). 16 workers as 4 nodes x 4 GPUs.
  check_claim(row("sdp4bit", kSharded, "mlp"), row("qw", kSharded, "mlp"));
  check_rerun(row("megatron-dp", kSharded, "mlp"), "sdp4bit");
}

TEST_CASE("Convergence claims: mlp with pp = 4 / AQ-SGD at fw2/bw4 within 3 % of fp32 activations - DirectQ worse",
          "[cli]")
{
  // AQ-SGD Fig. 3 / §4.1: quantizing activation *changes* per example converges like fp32, quantizing the activations
  // directly at 2 bits does not. 8192 fixed examples, batch 128 for 600 steps: about 9 epochs of buffer reuse.
  check_claim(row("aq-sgd", kPipeline, "mlp"), row("directq", kPipeline, "mlp"));
  check_rerun(row("fp32-pipeline", kPipeline, "mlp"), "aq-sgd");
}

// On char-gpt, a transformer with today's small-GPT choices, each comparison runs the schedule of the paper whose claim
// it tests (algorithms/PaperDefaults.hpp). Not every claim holds there; these tests pin what the evidence shows
// (docs/convergence.md) and that it reproduces, so a change that moves a verdict is seen.

TEST_CASE("Convergence claims: char-gpt with 1-bit Adam's schedule / 1-bit Adam within 3 % of Adam - error-feedback "
          "1-bit gradients with Adam worse",
          "[cli]")
{
  // 1-bit Adam §7.1 as the paper runs it (warm-up to the peak over 8.2 %, x0.99 per 0.34 % of the steps, the variance
  // frozen after 15 %) at Adam's best rate on this proxy, 3e-4, 200 steps of batch 64, each tensor compressed alone as
  // DeepSpeed's OnebitAdam does when given the model's tensors (compression_unit=tensor, algorithms/PaperDefaults.hpp).
  // With one buffer for the whole model instead, seeds 1-3 gave -0.4 % to +16.4 % (docs/convergence.md).
  check_claim(row("onebit-adam", kAdam, "char-gpt"), row("naive-1bit-adam", kAdam, "char-gpt"));
  check_rerun(row("adam", kAdam, "char-gpt"), "onebit-adam");
}

TEST_CASE("Convergence claims: char-gpt with 1-bit LAMB's schedule / 1-bit LAMB within 3 % of LAMB", "[cli]")
{
  // 1-bit LAMB §6.1: x12 geometric warm-up over 7.5 %, then x0.9 per 4.2 % of the steps, the variance and the
  // coefficients' averages frozen after 16.7 %; LAMB's best rate on this proxy, 0.02. LAMB + basic 1-bit (Table 2's
  // comparison, coefficients frozen too) is not worse here: the claim's naive side does not reproduce.
  const auto& onebit = row("onebit-lamb", kLamb, "char-gpt");
  const auto& basic  = row("lamb-basic-1bit", kLamb, "char-gpt");
  INFO(onebit.summary() << "; basic " << basic.summary());
  CHECK(onebit.seeds.size() >= 3);
  CHECK(onebit.mean_gap() <= onebit.threshold);
  CHECK_FALSE(basic.min_gap() > onebit.max_gap());
  check_rerun(row("lamb", kLamb, "char-gpt"), "onebit-lamb");
}

TEST_CASE("Convergence claims: char-gpt / SDP4Bit is not within 1 % of sharded DP on every seed - plain 4-bit weights "
          "worse",
          "[cli]")
{
  // SDP4Bit §5 claims its loss curves match the baseline's; on char-gpt seeds 1-3 give -1.4 % to +11.7 %.
  const auto& sdp = row("sdp4bit", kSharded, "char-gpt");
  const auto& qw  = row("qw", kSharded, "char-gpt");
  INFO(sdp.summary() << "; qw " << qw.summary());
  CHECK(sdp.seeds.size() >= 3);
  CHECK(sdp.converges != ccsim::api::Converges::YES);
  CHECK(qw.mean_gap() > sdp.mean_gap());
  check_rerun(row("megatron-dp", kSharded, "char-gpt"), "sdp4bit");
}

TEST_CASE("Convergence claims: fine-tuning the pre-trained transformer with pp = 4 / AQ-SGD at fw2/bw4 within 3 % of "
          "fp32 activations - DirectQ worse",
          "[cli]")
{
  // AQ-SGD's claim is about fine-tuning (§1: activations change slowly once the model is trained): tiny-transformer
  // pre-trained with fp32 Adam on GPL-2 (cached), fine-tuned on GPL-3 at a tenth of the pre-training rate.
  check_claim(row("aq-sgd", kPipeline, "tiny-transformer"), row("directq", kPipeline, "tiny-transformer"));
  check_rerun(row("fp32-pipeline", kPipeline, "tiny-transformer"), "aq-sgd");
}
