// Collective sweeps; see CollectiveSweep.hpp.
#include "api/run/CollectiveSweep.hpp"

#include "sim/MessageCount.hpp"

#include <algorithm>

namespace ccsim::api {

SweepTimes simulate_sweep(const sim::Topology& topo, const algorithms::CollectiveBench& bench, int gpus,
                          const std::vector<std::uint64_t>& sizes, sim::Fidelity fidelity, bool with_kernels,
                          const ProgressFn& on_progress)
{
  sim::StepShape shape;
  shape.gpus             = gpus;
  shape.dp               = gpus;
  shape.gpus_per_node    = topo.gpus_per_node;
  shape.nodes            = (gpus + topo.gpus_per_node - 1) / topo.gpus_per_node;
  shape.dp_per_node      = std::min(gpus, topo.gpus_per_node);
  shape.merge_node_pairs = fidelity == sim::Fidelity::FAST && topo.node_pair_flows_mergeable();
  std::vector<std::vector<sim::Op>> calls;
  for (const auto bytes : sizes)
    calls.push_back(algorithms::collective_bench_ops(bench, bytes, gpus, shape.dp_per_node));
  const auto doc = await_isolated(start_isolated_work([&] {
    const std::uint64_t planned = sim::planned_messages(calls, shape, fidelity);
    report_child_progress(0, planned);
    const auto t = sim::simulate_calls(topo, shape, calls, fidelity, with_kernels,
                                       [planned](std::uint64_t done) { report_child_progress(done, planned); });
    return nlohmann::json{{"seconds", t.seconds}, {"events", t.events}, {"wall_s", t.wall_s}};
  }), on_progress);
  return {doc["seconds"].get<std::vector<double>>(), doc["events"].get<std::uint64_t>(), doc["wall_s"].get<double>()};
}

std::vector<std::uint64_t> sweep_sizes(std::uint64_t lo, std::uint64_t hi, std::uint64_t factor)
{
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t s = lo; s <= hi; s = factor > 1 ? s * factor : s + lo)
    sizes.push_back(s);
  return sizes;
}

CollectiveTable run_collective_bench(const sim::Topology& topo, const algorithms::CollectiveBench& bench,
                                     const std::vector<int>& rank_counts, const std::vector<std::uint64_t>& sizes,
                                     sim::Fidelity fidelity, bool with_kernels,
                                     const std::function<void(int, std::uint64_t, std::uint64_t)>& on_progress)
{
  CollectiveTable out;
  double busbw_sum = 0;
  for (const int gpus : rank_counts) {
    const auto result = simulate_sweep(topo, bench, gpus, sizes, fidelity, with_kernels,
                                       [&](std::uint64_t done, std::uint64_t total) {
                                         if (on_progress)
                                           on_progress(gpus, done, total);
                                       });
    const double bus  = algorithms::bus_bandwidth_factor(bench, gpus);
    out.wall_s += result.wall_s;
    out.events += result.events;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      const double t     = result.seconds[i];
      const double algbw = t > 0 ? static_cast<double>(sizes[i]) / 1e9 / t : 0; // GB/s = 1e9 bytes/s (nccl-tests)
      busbw_sum += algbw * bus;
      out.rows.push_back({gpus, sizes[i], t * 1e6, algbw, algbw * bus});
    }
  }
  out.avg_busbw_gbytes_per_s = busbw_sum / static_cast<double>(out.rows.size());
  return out;
}

nlohmann::json to_json(const CollectiveTable& table, const algorithms::CollectiveBench& bench, const sim::Topology& topo,
                       const std::vector<int>& rank_counts, sim::Fidelity fidelity)
{
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : table.rows)
    rows.push_back({{"ranks", r.ranks},
                    {"size", r.size},
                    {"count", r.size / 4},
                    {"type", "float"},
                    {"redop", bench.nccl_redop},
                    {"root", -1},
                    {"time_us", r.time_us},
                    {"algbw_GBps", r.algbw_gbytes_per_s},
                    {"busbw_GBps", r.busbw_gbytes_per_s}});
  return {{"op", bench.name},
          {"topology", topo.name},
          {"gpus", rank_counts},
          {"gpus_per_node", topo.gpus_per_node},
          {"fidelity", fidelity == sim::Fidelity::EXACT ? "exact" : "fast"},
          {"rows", rows},
          {"avg_busbw_GBps", table.avg_busbw_gbytes_per_s},
          {"sim", {{"wall_s", table.wall_s}, {"events", table.events}}}};
}

} // namespace ccsim::api
