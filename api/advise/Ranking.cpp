// Rows, evidence and ranking of `advise`; see Ranking.hpp.
#include "api/advise/Ranking.hpp"

#include "api/run/Metrics.hpp"

#include <algorithm>

namespace ccsim::api {

RankedAlgorithm ranked_row(const std::string& algorithm, const SimulationReport& r, double baseline_samples_per_s,
                           double epoch_samples)
{
  RankedAlgorithm row;
  row.algorithm     = algorithm;
  row.samples_per_s        = r.samples_per_s;
  row.tokens_per_s         = metric_value(r, Metric::TOKENS_PER_S);
  row.tokens_per_s_per_gpu = metric_value(r, Metric::TOKENS_PER_S_PER_GPU);
  if (const auto iv = r.intervals.find(Metric::SAMPLES_PER_S); iv != r.intervals.end())
    row.samples_per_s_range = iv->second;
  row.epoch_time_s             = epoch_samples / r.samples_per_s;
  row.speedup                  = baseline_samples_per_s > 0 ? r.samples_per_s / baseline_samples_per_s : 0;
  row.inter_node_bytes_per_gpu = r.bytes_per_gpu.inter_node;
  row.intra_node_bytes_per_gpu = r.bytes_per_gpu.intra_node;
  row.phases                   = r.phases.size();
  row.memory_gb_per_gpu        = r.memory_gb_per_gpu;
  row.fits_memory              = r.memory.fit.verdict;
  row.dp = r.config.dp, row.tp = r.config.tp, row.pp = r.config.pp;
  row.zero_stage               = r.config.zero_stage;
  row.vpp                      = r.config.vpp;
  row.micro_batch              = r.config.micro_batch;
  row.grad_accumulation        = r.config.grad_accumulation;
  row.activation_recomputation = r.memory.activation_recomputation;
  // The mode the compute priced, where it was priced per operator; else what the memory model needed.
  row.recompute = r.operators ? r.operators->recompute : row.activation_recomputation ? "full" : "none";
  return row;
}

void add_evidence(RankedAlgorithm& row, const std::vector<EvidenceRow>& evidence, double epoch_samples)
{
  const auto rows = find_evidence(evidence, row.algorithm);
  if (rows.empty())
    return;
  row.has_evidence   = true;
  const bool all_yes = std::all_of(rows.begin(), rows.end(), [](const auto* e) { return e->converges == Converges::YES; });
  const bool all_no  = std::all_of(rows.begin(), rows.end(), [](const auto* e) { return e->converges == Converges::NO; });
  row.converges      = all_yes ? Converges::YES : all_no ? Converges::NO : Converges::UNCERTAIN;
  // The steps ratio of a transformer row (the proxy the papers' claims are tested on) before the mlp's.
  const EvidenceRow* source = nullptr;
  for (const auto* e : rows)
    if (e->steps_ratio && (source == nullptr || (source->proxy == "mlp" && e->proxy != "mlp")))
      source = e;
  for (const auto* e : rows) {
    row.evidence.push_back(e->summary());
    if (const auto brief = e->short_summary();
        std::find(row.evidence_short.begin(), row.evidence_short.end(), brief) == row.evidence_short.end())
      row.evidence_short.push_back(brief);
    if (e->converges != Converges::YES)
      row.reason += (row.reason.empty() ? "" : "; ") + e->proxy + " " + e->regime + ": " + e->reason;
  }
  const EvidenceRow& shown = source != nullptr ? *source : *rows.front();
  row.family   = shown.family;
  row.baseline = shown.baseline;
  row.command  = shown.command;
  // Time-to-accuracy: the family's baseline reaches the target in one epoch of epoch_samples; an algorithm needs
  // steps_ratio times as many steps, each at its own simulated rate.
  if (source != nullptr && *row.converges != Converges::NO) {
    row.steps_ratio        = *source->steps_ratio;
    row.time_to_accuracy_h = *source->steps_ratio * epoch_samples / row.samples_per_s / 3600;
  }
}

void rank(std::vector<RankedAlgorithm>& ranking)
{
  auto group = [](const RankedAlgorithm& r) {
    if (!r.converges)
      return 2;
    return *r.converges == Converges::YES ? 0 : *r.converges == Converges::UNCERTAIN ? 1 : 3;
  };
  std::stable_sort(ranking.begin(), ranking.end(), [&](const RankedAlgorithm& a, const RankedAlgorithm& b) {
    if (group(a) != group(b))
      return group(a) < group(b);
    if (a.time_to_accuracy_h.has_value() != b.time_to_accuracy_h.has_value())
      return a.time_to_accuracy_h.has_value();
    if (a.time_to_accuracy_h)
      return *a.time_to_accuracy_h < *b.time_to_accuracy_h;
    return a.samples_per_s > b.samples_per_s;
  });
  // The ranking by throughput alone, beside it: what `advise` answered before convergence was weighed.
  std::vector<std::size_t> order(ranking.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return ranking[a].samples_per_s > ranking[b].samples_per_s; });
  for (std::size_t i = 0; i < order.size(); ++i)
    ranking[order[i]].throughput_rank = i + 1;
}

} // namespace ccsim::api
