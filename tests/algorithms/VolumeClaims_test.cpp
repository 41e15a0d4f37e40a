// The papers' communication-volume claims, computed from the algorithms' own plans (whose byte counts come
// from the numerics/ size functions), with the closed form each claim rests on.
#include "algorithms/PlanAlgorithm.hpp"

#include <catch2/catch.hpp>

using namespace ccsim;

namespace {
sim::StepShape shape(int dp, int per_node)
{
  sim::StepShape s;
  s.params = s.params_per_rank = 340000000; // BERT-Large
  s.gpus = s.dp = dp;
  s.gpus_per_node = s.dp_per_node = per_node;
  s.nodes = dp / per_node;
  s.global_batch = 8192, s.micro_batch = 16, s.grad_accumulation = 8192 / 16 / dp;
  s.seq_len = 128, s.hidden = 1024, s.layers = 24, s.grad_bytes = 2;
  return s;
}

/// Bytes one rank sends per step, averaged over phases by their share of steps (ring algorithms: an all-reduce
/// sends 2(n-1)/n of its buffer, the other collectives (n-1)/n).
double sent_per_step(const std::string& name, const sim::StepShape& s, algorithms::ParamValues overrides = {},
                     const char* only_label = nullptr)
{
  const auto* a = algorithms::find_plan_algorithm(name);
  REQUIRE(a != nullptr);
  algorithms::ParamValues p = algorithms::default_params(*a);
  for (const auto& [k, v] : overrides)
    p[k] = v;
  double total = 0;
  for (const auto& phase : a->plan(s, p).phases)
    for (const auto& op : phase.ops)
      if (const auto* c = std::get_if<sim::CommOp>(&op)) {
        if (only_label != nullptr && c->label.find(only_label) == std::string::npos)
          continue;
        const double n = c->group == sim::GroupKind::DATA_PARALLEL ? s.dp
                         : c->group == sim::GroupKind::DP_INTRA_NODE ? s.dp_per_node
                                                                      : static_cast<double>(s.dp) / s.dp_per_node;
        const double share = c->collective == sim::Collective::ALL_REDUCE ? 2 * (n - 1) / n : (n - 1) / n;
        total += phase.fraction * share * static_cast<double>(c->bytes);
      }
  return total;
}
} // namespace

TEST_CASE("VolumeClaims: 1-bit Adam sends about 5x less than Adam (1-bit Adam abstract)", "[algorithms]")
{
  // fp16 gradients (2 bytes) vs 1 bit per value in both phases: 16x in the compressed stage; with 15 % of the
  // steps uncompressed, 1 / (0.15 + 0.85/16) = 4.92.
  const auto s     = shape(64, 4);
  const double r   = sent_per_step("adam", s) / sent_per_step("onebit-adam", s);
  CHECK(r == Approx(1 / (0.15 + 0.85 / 16)).epsilon(0.01));
  CHECK(r == Approx(5.0).epsilon(0.05));
}

TEST_CASE("VolumeClaims: 1-bit LAMB sends 4.6x / 4.1x less than LAMB at seq 128 / 512 (1-bit LAMB §6)", "[algorithms]")
{
  // Warm-ups of 16.7 % and 19.1 % of the steps (SLAMB §5.1 quoting Li et al. 2022): 1/(w + (1-w)/16).
  const auto s = shape(64, 4);
  CHECK(sent_per_step("lamb", s) / sent_per_step("onebit-lamb", s) == Approx(4.6).epsilon(0.01));
  CHECK(sent_per_step("lamb", s) / sent_per_step("onebit-lamb", s, {{"warmup_fraction", 0.191}}) ==
        Approx(4.1).epsilon(0.01));
}

TEST_CASE("VolumeClaims: SLAMB sends 1/(k + 1/H) = 9.1x less than LAMB at k = 0.1 / H = 100 (SLAMB §5.1)", "[algorithms]")
{
  const auto s = shape(64, 4);
  CHECK(sent_per_step("lamb", s) / sent_per_step("slamb", s) == Approx(1 / (0.1 + 0.01)).epsilon(1e-4));
  CHECK(sent_per_step("lamb", s) / sent_per_step("slamb", s) == Approx(9.1).epsilon(0.01));
}

TEST_CASE("VolumeClaims: SDP4Bit sends about 4x less weight and 8x less inter-node gradient data", "[algorithms]")
{
  // Weights: bf16 (16 bits) vs 4-bit codes + an fp32 scale per 2048 values: 16 / (4 + 32/2048) = 3.98.
  // Gradients between nodes: fp32 (32 bits) vs 4-bit codes + an fp32 scale per 128: 32 / (4 + 32/128) = 7.53
  // (SDP4Bit §4: "nearly 4 bits").
  auto s = shape(64, 4);
  const double w = sent_per_step("megatron-dp", s, {}, "weights") / sent_per_step("sdp4bit", s, {}, "weight");
  CHECK(w == Approx(16.0 / (4 + 32.0 / 2048)).epsilon(1e-3));
  // One DP rank per node (TP = GPUs per node): the whole gradient goes through the inter-node stage.
  s.dp_per_node = 1;
  const double g = sent_per_step("megatron-dp", s, {}, "gradients") / sent_per_step("sdp4bit", s, {}, "inter-node");
  CHECK(g == Approx(32.0 / (4 + 32.0 / 128)).epsilon(1e-3));
}
