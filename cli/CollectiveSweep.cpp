#include "cli/CollectiveSweep.hpp"

#include "sim/MessageCount.hpp"

#include <algorithm>

namespace ccsim::cli {

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

} // namespace ccsim::cli
