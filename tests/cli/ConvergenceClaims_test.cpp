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

/// Reruns the first seed of `row`'s comparison with its own command (`extra` appended) and checks every algorithm of
/// it against the evidence.
void check_rerun(const EvidenceRow& any, const std::string& extra = "")
{
  std::string cmd = any.command;
  const auto seed = cmd.find("--seed SEED");
  REQUIRE(cmd.rfind("build/ccsim train ", 0) == 0);
  REQUIRE(seed != std::string::npos);
  cmd.replace(seed, 11, "--seed " + std::to_string(any.seeds.front()));
  const auto r = run_ccsim(cmd.substr(std::string("build/ccsim ").size()) + " --quiet " + extra);
  INFO(cmd << "\n" << r.err);
  REQUIRE(r.exit_code == 0);
  const auto doc = nlohmann::json::parse(r.out);
  for (const auto& run : doc.contains("runs") ? doc["runs"] : nlohmann::json::array({doc})) {
    const auto& e = row(run["algorithm"].get<std::string>(), any.family, any.proxy);
    INFO(e.algorithm);
    REQUIRE(e.final_loss.front().has_value() == !run["final_loss"].is_null());
    if (e.final_loss.front())
      CHECK(run["final_loss"].get<double>() == Approx(*e.final_loss.front()).epsilon(0.03));
  }
}
} // namespace

TEST_CASE("Convergence claims: the evidence has every claim's rows over at least 3 seeds", "[cli]")
{
  for (const auto& r : evidence()) {
    INFO(r.algorithm << " / " << r.family << " on " << r.proxy);
    CHECK(r.seeds.size() >= 3);
  }
}
