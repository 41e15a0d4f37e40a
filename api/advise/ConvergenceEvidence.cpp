#include "api/advise/ConvergenceEvidence.hpp"

#include "algorithms/PlanAlgorithm.hpp"
#include "sim/io/JsonInput.hpp"

#include <filesystem>
#include <set>

namespace ccsim::api {

std::string default_evidence_path()
{
  return (std::filesystem::path(io::data_dir()) / "workloads" / "evidence" / "convergence.json").string();
}

std::vector<EvidenceRow> load_convergence_evidence(const std::string& path)
{
  const auto doc = io::read_json_file(path);
  if (!doc.is_object())
    throw io::InputError(path, "", "must be a JSON object with \"rows\"");
  const io::JsonObject root(doc, path);
  root.allow_only({"rows"});
  constexpr io::Range kLoss{0, 1e6, true};
  constexpr io::Range kSteps{1, 1e12};
  constexpr io::Range kRatio{0, 1e6, true};
  std::vector<EvidenceRow> rows;
  std::set<std::string> seen;
  const auto objects = root.objects("rows");
  if (objects.empty()) // advise would rank every algorithm as "no evidence" and say nothing was wrong
    root.fail_at("rows", "lists no algorithm");
  // Each row is about an algorithm advise can rank; a misspelt one would silently leave the real one without evidence.
  const auto known = [](const io::JsonObject& r, const char* key) {
    const std::string name = r.string(key);
    if (algorithms::find_plan_algorithm(name) == nullptr)
      r.fail_at(key, io::echo(name) + " is not an algorithm ccsim simulates (ccsim list algorithms)");
    return name;
  };
  for (const auto& r : objects) {
    r.allow_only({"algorithm", "family", "baseline", "proxy", "target_loss", "baseline_steps_to_target",
                  "steps_to_target", "converges", "steps_ratio", "final_loss", "command", "reason"});
    EvidenceRow row;
    row.algorithm = known(r, "algorithm");
    row.family    = r.string("family");
    row.baseline  = known(r, "baseline");
    (void)r.string("proxy");
    (void)r.number_in("target_loss", kLoss);
    (void)r.number_in("final_loss", kLoss);
    (void)r.integer_in("baseline_steps_to_target", kSteps);
    row.converges = r.boolean("converges");
    row.command   = r.string("command");
    row.reason    = r.string_or("reason", "");
    const bool has_ratio = r.has("steps_ratio") && !r.raw().at("steps_ratio").is_null();
    const bool has_steps = r.has("steps_to_target") && !r.raw().at("steps_to_target").is_null();
    if (row.converges != has_ratio || row.converges != has_steps)
      r.fail_at("converges", row.converges ? "true, but steps_ratio or steps_to_target is null"
                                           : "false, but steps_ratio or steps_to_target is set");
    if (has_ratio) {
      row.steps_ratio = r.number_in("steps_ratio", kRatio);
      (void)r.integer_in("steps_to_target", kSteps);
    } else if (row.reason.empty()) {
      r.fail_at("reason", "an algorithm that does not converge needs a reason");
    }
    if (!seen.insert(row.algorithm).second)
      r.fail_at("algorithm", "appears twice: " + io::echo(row.algorithm));
    rows.push_back(std::move(row));
  }
  return rows;
}

const EvidenceRow* find_evidence(const std::vector<EvidenceRow>& rows, const std::string& algorithm)
{
  for (const auto& r : rows)
    if (r.algorithm == algorithm)
      return &r;
  return nullptr;
}

} // namespace ccsim::api
