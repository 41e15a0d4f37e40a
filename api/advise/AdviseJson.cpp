// `advise --format json`'s document (Advisor.hpp, to_json): the ranking, the algorithms that cannot run, and how much of
// the candidates was evaluated.
#include "api/advise/Advisor.hpp"

namespace ccsim::api {

namespace {
/// How much was evaluated: every candidate is simulated, pruned (with search), invalid or left (past the time limit).
nlohmann::json evaluation_json(const AdviseReport& report)
{
  const auto& c = report.counts;
  nlohmann::json out = {{"partial", report.partial}, {"candidates", c.candidates}, {"simulated", c.simulated},
                        {"left", c.left}};
  if (report.search) {
    out["pruned_by_memory"] = c.pruned_by_memory;
    out["pruned_by_bound"]  = c.pruned_by_bound;
    out["invalid"]          = c.invalid;
  }
  if (report.partial)
    out["seconds"] = report.seconds;
  return out;
}
} // namespace

nlohmann::json to_json(const AdviseReport& report)
{
  nlohmann::json ranking = nlohmann::json::array();
  for (const auto& r : report.ranking) {
    nlohmann::json row = {{"algorithm", r.algorithm},
                          {"epoch_time_s", r.epoch_time_s},
                          {"samples_per_s", r.samples_per_s},
                          {"samples_per_s_interval",
                           {{"low", r.samples_per_s_range.low},
                            {"high", r.samples_per_s_range.high},
                            {"why", r.samples_per_s_range.why}}},
                          {"tokens_per_s", r.tokens_per_s},
                          {"tokens_per_s_per_gpu", r.tokens_per_s_per_gpu},
                          {"speedup", r.speedup},
                          {"inter_node_bytes_per_gpu", r.inter_node_bytes_per_gpu},
                          {"intra_node_bytes_per_gpu", r.intra_node_bytes_per_gpu},
                          {"phases", r.phases},
                          {"memory_gb_per_gpu", r.memory_gb_per_gpu},
                          {"fits_memory", to_string(r.fits_memory)},
                          {"split",
                           {{"dp", r.dp},
                            {"tp", r.tp},
                            {"pp", r.pp},
                            {"micro_batch", r.micro_batch},
                            {"grad_accumulation", r.grad_accumulation},
                            {"activation_recomputation", r.activation_recomputation},
                            {"recompute", r.recompute},
                            {"zero_stage", r.zero_stage ? nlohmann::json(*r.zero_stage) : nlohmann::json(nullptr)},
                            {"vpp", r.vpp}}},
                          {"converges", r.converges ? nlohmann::json(to_string(*r.converges)) : nlohmann::json(nullptr)},
                          {"time_to_accuracy_h",
                           r.time_to_accuracy_h ? nlohmann::json(*r.time_to_accuracy_h) : nlohmann::json(nullptr)},
                          {"throughput_rank", r.throughput_rank}};
    if (report.search)
      row["search"] = {{"splits_tried", r.splits_tried}, {"splits_that_run", r.splits_that_run}};
    if (r.has_evidence) {
      row["evidence"] = {{"family", r.family}, {"baseline", r.baseline}, {"command", r.command}, {"rows", r.evidence}};
      if (r.steps_ratio)
        row["steps_ratio"] = *r.steps_ratio;
      if (!r.reason.empty())
        row["evidence"]["reason"] = r.reason;
    }
    ranking.push_back(row);
  }
  nlohmann::json cannot_run = nlohmann::json::array();
  for (const auto& c : report.cannot_run) {
    nlohmann::json entry = {{"algorithm", c.algorithm}, {"reason", c.reason}};
    if (c.memory) {
      nlohmann::json fixes = nlohmann::json::array();
      for (const auto& f : c.would_fit)
        fixes.push_back(
            {{"change", f.change}, {"memory_gb_per_gpu", f.memory_gb_per_gpu}, {"activation_recomputation", f.recompute}});
      entry["memory"] = {{"memory_gb_per_gpu", c.memory->memory_gb_per_gpu},
                         {"usable_gb", c.memory->usable_gb},
                         {"split", {{"tp", c.memory->tp}, {"pp", c.memory->pp}, {"micro_batch", c.memory->micro_batch}}},
                         {"would_fit", fixes}};
    }
    cannot_run.push_back(entry);
  }
  return {{"title", report.title},
          {"baseline", report.baseline},
          {"epoch_samples", report.epoch_samples},
          {"evidence_file", report.evidence_file},
          {"search", report.search},
          {"ranking", ranking},
          {"cannot_run", cannot_run},
          {"evaluation", evaluation_json(report)}};
}

} // namespace ccsim::api
