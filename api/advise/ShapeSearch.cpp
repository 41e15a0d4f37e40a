// Candidate splits for `advise --search`; see ShapeSearch.hpp for the rules.
#include "api/advise/ShapeSearch.hpp"

#include "sim/compute/OperatorCost.hpp"

#include <algorithm>

namespace ccsim::api {

namespace {
bool divides(std::uint64_t d, std::uint64_t n) { return d != 0 && n % d == 0; }

/// The profiles simulate could use on this topology (Workload::find_compute's matching: GPU, sequence, stack).
std::vector<sim::ComputeProfile> profiles_for(const sim::Topology& topo, const sim::Workload& work)
{
  std::vector<sim::ComputeProfile> out;
  for (const auto& p : work.compute)
    if (p.gpu == topo.gpu.name && p.seq_len == work.seq_len && (p.software.empty() || p.software == topo.software))
      out.push_back(p);
  return out;
}
} // namespace

std::vector<ShapeCandidate> search_candidates(const sim::Topology& topo, const sim::Workload& work, int gpus,
                                              std::uint64_t global_batch, bool pipeline_algorithm,
                                              std::uint64_t max_micro_batch)
{
  const auto measured = profiles_for(topo, work);
  auto profiled       = [&](int tp, std::uint64_t mb) {
    return measured.empty() || std::any_of(measured.begin(), measured.end(), [&](const auto& p) {
             return p.tp == tp && p.micro_batch == mb;
           });
  };
  std::vector<ShapeCandidate> out;
  const int max_tp = std::max(1, std::min(topo.gpus_per_node, gpus));
  for (int tp = 1; tp <= max_tp; tp *= 2) {
    if (work.heads > 0 && work.heads % tp != 0)
      continue;
    const int layers = std::max(1, work.layers);
    for (int pp = pipeline_algorithm ? 2 : 1; pp <= layers; ++pp) {
      // Whole layers per stage, or (from an architecture) whole slots with the embedding and the output layer taking
      // one each on the first and the last stage, as simulate splits them (sim::chunks_are_whole: Llama 3's 126 on 16).
      if (!sim::chunks_are_whole(layers, pp, 1, work.architecture.has_value()) ||
          !divides(static_cast<std::uint64_t>(tp) * pp, static_cast<std::uint64_t>(gpus)))
        continue;
      const std::uint64_t dp      = static_cast<std::uint64_t>(gpus / (tp * pp));
      if (!divides(dp, global_batch))
        continue;
      const std::uint64_t per_dp = global_batch / dp;
      std::vector<std::uint64_t> sizes;
      for (std::uint64_t mb = 1; mb <= std::min(per_dp, max_micro_batch); mb *= 2)
        sizes.push_back(mb);
      if (work.micro_batch != 0 && work.micro_batch <= per_dp &&
          std::find(sizes.begin(), sizes.end(), work.micro_batch) == sizes.end())
        sizes.push_back(work.micro_batch);
      for (const auto mb : sizes)
        if (divides(mb, per_dp) && profiled(tp, mb))
          out.push_back({tp, pp, mb});
    }
  }
  return out;
}

} // namespace ccsim::api
