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
