// Collective sweeps; see CollectiveSweep.hpp.
#include "api/run/CollectiveSweep.hpp"

#include "sim/collective/MessageCount.hpp"
#include "io/JsonInput.hpp"

#include <fmt/format.h>

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
    sim::leave_simulation_to_process_exit(); // the child ends with its answer
    const std::uint64_t planned = sim::planned_messages(calls, shape, fidelity, topo);
    report_child_progress(0, planned);
    const auto t = sim::simulate_calls(topo, shape, calls, fidelity, with_kernels,
                                       [planned](std::uint64_t done) { report_child_progress(done, planned); });
    return nlohmann::json{{"seconds", t.seconds}, {"events", t.events}, {"wall_s", t.wall_s}};
  }), on_progress);
  return {doc["seconds"].get<std::vector<double>>(), doc["events"].get<std::uint64_t>(), doc["wall_s"].get<double>()};
}

std::optional<sim::CollectivePlan> bench_plan(const sim::Topology& topo, const algorithms::CollectiveBench& bench,
                                              int gpus, std::uint64_t bytes)
{
  const auto ops = algorithms::collective_bench_ops(bench, bytes, gpus, std::min(gpus, topo.gpus_per_node));
  if (ops.size() != 1 || !std::holds_alternative<sim::CommOp>(ops.front()))
    return std::nullopt;
  const auto& op = std::get<sim::CommOp>(ops.front());
  sim::Group all;
  for (int r = 0; r < gpus; ++r)
    all.push_back(r);
  return sim::choose_collective(topo, op.collective, sim::group_shape(all, topo.gpus_per_node), op.bytes, op.algo);
}

void force_collective(sim::Topology& topo, const std::optional<std::string>& algo,
                      const std::optional<std::string>& proto, const std::string& flag_algo,
                      const std::string& flag_proto)
{
  if (algo) {
    const auto a   = sim::algo_from_string(*algo);
    const bool own = a == sim::Algo::RING || a == sim::Algo::HIERARCHICAL;
    if (!a || *a == sim::Algo::DIRECT || (!topo.nccl.present && !own))
      throw io::InputError(flag_algo, "",
                           topo.nccl.present
                               ? io::echo(*algo) + " is not one of ring, tree, nvls, nvls_tree, hierarchical"
                               : fmt::format("{}: topology {} has no \"nccl\" block, so it runs ccsim's ring or "
                                             "hierarchical all-reduce only",
                                             io::echo(*algo), topo.name));
    if ((*a == sim::Algo::NVLS || *a == sim::Algo::NVLS_TREE) && !topo.nccl.nvls)
      throw io::InputError(flag_algo, "", fmt::format("{}: topology {} has no NVLS (nccl.nvls)", *algo, topo.name));
    if (!sim::release_has(topo.nccl.version, *a))
      throw io::InputError(flag_algo, "", fmt::format("{}: topology {} runs NCCL {}, which predates {}", *algo,
                                                      topo.name, topo.nccl.version->text(), sim::added_in(*a)));
    topo.nccl.algorithms = {*a};
  }
  if (proto) {
    const auto p = sim::proto_from_string(*proto);
    if (!p || (!topo.nccl.present && *p != sim::Proto::SIMPLE))
      throw io::InputError(flag_proto, "",
                           topo.nccl.present ? io::echo(*proto) + " is not one of LL, LL128, Simple"
                                             : fmt::format("{}: topology {} has no \"nccl\" block, so its collectives "
                                                           "send Simple only",
                                                           io::echo(*proto), topo.name));
    if (!sim::release_has(topo.nccl.version, *p))
      throw io::InputError(flag_proto, "", fmt::format("{}: topology {} runs NCCL {}, which predates {}", *proto,
                                                       topo.name, topo.nccl.version->text(), sim::added_in(*p)));
    topo.nccl.protocols = {*p};
  }
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
      CollectiveRow row;
      row.ranks              = gpus;
      row.size               = sizes[i];
      row.time_us            = t * 1e6;
      row.algbw_gbytes_per_s = algbw;
      row.busbw_gbytes_per_s = algbw * bus;
      if (const auto plan = bench_plan(topo, bench, gpus, sizes[i])) {
        row.algorithm  = sim::to_string(plan->algo);
        row.protocol   = sim::to_string(plan->proto);
        row.bottleneck = plan->bottleneck;
        row.model_us   = plan->seconds() * 1e6;
      }
      out.rows.push_back(row);
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
                    {"count", r.count()},
                    {"type", "float"},
                    {"redop", bench.nccl_redop},
                    {"root", -1},
                    {"time_us", r.time_us},
                    {"algbw_GBps", r.algbw_gbytes_per_s},
                    {"busbw_GBps", r.busbw_gbytes_per_s},
                    {"algorithm", r.algorithm},
                    {"protocol", r.protocol},
                    {"bottleneck", r.bottleneck},
                    {"model_us", r.model_us}});
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
