// The papers' convergence claims, each as its paper makes it, on the committed evidence
// (workloads/evidence/convergence.json, written by scripts/convergence-evidence.sh from real `ccsim train` runs). A
// row's verdict comes from the 90 % confidence interval of its mean gap to the uncompressed baseline over the seeds
// (api/advise/ConvergenceEvidence.hpp, issue 42): a claim holds when the compressed method's verdict is yes (the whole
// interval within the claim's threshold) and the naive method's is no (the whole interval above it). Where the
// evidence does not carry a claim, the test pins the verdict it does give, so a change that moves one is seen. That
// the file reproduces is checked by the CTest tests "evidence: seed 1 of every ... family reproduces to the digit".
#include "api/advise/ConvergenceEvidence.hpp"

#include <catch2/catch.hpp>

#include <string>

using ccsim::api::Converges;
using ccsim::api::EvidenceRow;

namespace {
// Seeds every row must have: issue 42's ten. The committed file holds seeds 1-10 of issue 42's bit-identical numerics,
// each row with its check value (docs/convergence.md); the verdicts below are that file's.
constexpr std::size_t kMinSeeds = 10;

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

/// The verdict of `r` is `want`, on at least kMinSeeds seeds.
void check_verdict(const EvidenceRow& r, Converges want)
{
  INFO(r.algorithm << " " << r.summary() << " against " << 100 * r.threshold << " %");
  CHECK(r.seeds.size() >= kMinSeeds);
  CHECK(to_string(r.converges) == to_string(want));
}

/// The claim holds: the compressed method converges (yes), the naive one does not (no).
void check_claim(const EvidenceRow& compressed, const EvidenceRow& naive)
{
  CHECK(compressed.seeds == naive.seeds);
  check_verdict(compressed, Converges::YES);
  check_verdict(naive, Converges::NO);
}

const std::string kAdam = "data-parallel Adam", kLamb = "data-parallel LAMB",
                  kLargeLamb = "data-parallel LAMB (large batch)", kSharded = "sharded data parallel",
                  kPipeline = "pipeline parallel (pp = 4, fw2/bw4)";
} // namespace

TEST_CASE("Convergence claims: every row has its seeds and its statistics", "[cli]")
{
  for (const auto& r : evidence()) {
    INFO(r.algorithm << " / " << r.family << " on " << r.proxy);
    CHECK(r.seeds.size() >= kMinSeeds);
    if (r.algorithm == r.baseline)
      CHECK(r.converges == Converges::YES); // the baseline against itself: a gap of exactly 0
  }
}

TEST_CASE("Convergence claims: mlp / 1-bit Adam within 3 % of Adam - error-feedback 1-bit gradients with Adam worse",
          "[cli]")
{
  // 1-bit Adam Fig. 1 and Fig. 6: compressing momentum after a variance-freezing warm-up keeps Adam's convergence;
  // compressing gradients that feed Adam's variance does not.
  check_claim(row("onebit-adam", kAdam, "mlp"), row("naive-1bit-adam", kAdam, "mlp"));
}

TEST_CASE("Convergence claims: mlp at batch 4096 / 1-bit LAMB and SLAMB within 3 % of LAMB - random-k LAMB worse",
          "[cli]")
{
  // 1-bit LAMB Table 2 and SLAMB Fig. 3a: the same convergence as LAMB at a large batch; SLAMB Fig. 1: random-k
  // sparsified gradients (k = 0.1) converge much slower.
  check_claim(row("onebit-lamb", kLargeLamb, "mlp"), row("randk-lamb", kLargeLamb, "mlp"));
  check_claim(row("slamb", kLargeLamb, "mlp"), row("randk-lamb", kLargeLamb, "mlp"));
}

TEST_CASE("Convergence claims: mlp / SDP4Bit within 1 % of sharded DP - plain 4-bit weights worse", "[cli]")
{
  // SDP4Bit Table 1 / Fig. 6 (qWD + TLq-HS keep the baseline's loss; quantizing the weights themselves does not,
  // §4.1). Three seeds left SDP4Bit's interval straddling 1 %; ten put all of it inside (+0.1 to +0.6 %).
  check_claim(row("sdp4bit", kSharded, "mlp"), row("qw", kSharded, "mlp"));
}

TEST_CASE("Convergence claims: mlp with pp = 4 / AQ-SGD at fw2/bw4 within 3 % of fp32 - DirectQ worse", "[cli]")
{
  // AQ-SGD Fig. 3 / §4.1 (quantized activation changes converge like fp32; 2-bit activations do not). 8192 fixed
  // examples, batch 128 for 600 steps: about 9 epochs of buffer reuse. Three seeds spread too widely to decide 3 %;
  // over ten AQ-SGD ends below fp32 (-2.5 %, interval -3.7 to -1.3 %; why it ends below was not examined).
  check_claim(row("aq-sgd", kPipeline, "mlp"), row("directq", kPipeline, "mlp"));
}

// On char-gpt, a transformer with today's small-GPT choices, each comparison runs the schedule and peak rate of the
// claim it tests (algorithms/PaperDefaults.hpp).

TEST_CASE("Convergence claims: char-gpt with 1-bit Adam's schedule / 1-bit Adam within 3 % of Adam is not decided - "
          "error-feedback 1-bit gradients with Adam worse",
          "[cli]")
{
  // 1-bit Adam §7.1 as the paper runs it (warm-up to the peak over 8.2 %, x0.99 per 0.34 % of the steps, the variance
  // frozen after 15 %) at Adam's best peak on this proxy, 3e-4, each tensor compressed alone as DeepSpeed's OnebitAdam
  // does when given the model's tensors. Its mean gap is inside 3 % but the seeds spread too widely: uncertain.
  check_verdict(row("onebit-adam", kAdam, "char-gpt"), Converges::UNCERTAIN);
  check_verdict(row("naive-1bit-adam", kAdam, "char-gpt"), Converges::NO);
}

TEST_CASE("Convergence claims: char-gpt with 1-bit LAMB's schedule / 1-bit LAMB within 3 % of LAMB", "[cli]")
{
  // 1-bit LAMB §6.1: x12 geometric warm-up over 7.5 %, then x0.9 per 4.2 % of the steps, the variance and the
  // coefficients' averages frozen after 16.7 %; LAMB's best peak on this proxy, 0.02. LAMB + basic 1-bit (Table 2's
  // comparison, coefficients frozen too) converges as well here: the claim's naive side does not reproduce.
  check_verdict(row("onebit-lamb", kLamb, "char-gpt"), Converges::YES);
  check_verdict(row("lamb-basic-1bit", kLamb, "char-gpt"), Converges::YES);
}

TEST_CASE("Convergence claims: char-gpt at batch 256 / SLAMB is not within 3 % of LAMB - random-k LAMB worse", "[cli]")
{
  // SLAMB's claim (SLAMB Fig. 3) at a large batch for this proxy; both sparsified methods' intervals lie above 3 %.
  const auto& slamb = row("slamb", kLargeLamb, "char-gpt");
  const auto& randk = row("randk-lamb", kLargeLamb, "char-gpt");
  check_verdict(slamb, Converges::NO);
  check_verdict(randk, Converges::NO);
  CHECK(randk.interval().low > slamb.interval().high);
}

TEST_CASE("Convergence claims: char-gpt / neither SDP4Bit within 1 % of sharded DP nor plain 4-bit weights worse is "
          "decided",
          "[cli]")
{
  // SDP4Bit §5 claims its loss curves match the baseline's. Ten seeds decide neither side at 1 %: SDP4Bit +1.7 %
  // (-4.4 to +7.7 %), plain 4-bit weights +6.5 % (+0.5 to +12.5 %; over eight seeds, +3.4 to +15.6 %, a "no" that
  // seeds 9 and 10 took back).
  check_verdict(row("sdp4bit", kSharded, "char-gpt"), Converges::UNCERTAIN);
  check_verdict(row("qw", kSharded, "char-gpt"), Converges::UNCERTAIN);
}

TEST_CASE("Convergence claims: fine-tuning the pre-trained transformer with pp = 4 / AQ-SGD at fw2/bw4 within 3 % of "
          "fp32 activations - DirectQ worse",
          "[cli]")
{
  // AQ-SGD's claim is about fine-tuning (§1: activations change slowly once the model is trained): tiny-transformer
  // pre-trained with fp32 Adam on GPL-2 (cached), fine-tuned on GPL-3 at a tenth of the pre-training rate.
  check_claim(row("aq-sgd", kPipeline, "tiny-transformer"), row("directq", kPipeline, "tiny-transformer"));
}
