#pragma once
// One collective over a list of sizes on a simulated cluster, in a forked child (SimGrid's Engine is one per
// process): what `ccsim collective` prints (nccl-tests' columns) and what `ccsim calibrate` fits the topology's
// constants to.

#include "api/process/Isolation.hpp"
#include "algorithms/CollectiveOps.hpp"
#include "sim/nccl/NcclModel.hpp"
#include "sim/engine/StepEngine.hpp"
#include "sim/platform/Topology.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ccsim::api {

struct SweepTimes {
  std::vector<double> seconds; // one per size
  std::uint64_t events = 0;
  double wall_s        = 0;
};

/// Seconds of one call of `bench` at each size on `gpus` ranks.
SweepTimes simulate_sweep(const sim::Topology& topo, const algorithms::CollectiveBench& bench, int gpus,
                          const std::vector<std::uint64_t>& sizes, sim::Fidelity fidelity, bool with_kernels,
                          const ProgressFn& on_progress = {});

/// One row of nccl-tests' table: a size on a rank count, its time and bandwidths. GB/s are 1e9 bytes per second, as
/// nccl-tests prints them: algbw = size / time, busbw = algbw x the collective's bus factor (2(n-1)/n for all-reduce).
struct CollectiveRow {
  int ranks          = 0;
  std::uint64_t size = 0;
  double time_us     = 0;
  double algbw_gbytes_per_s = 0;
  double busbw_gbytes_per_s = 0;
  // What ran (the collective model's choice, sim/nccl/NcclModel.hpp) and its own time on an idle cluster; empty for the
  // compressed collectives, which run several.
  std::string algorithm, protocol, bottleneck;
  double model_us = 0;
  /// nccl-tests' "count": the size in float elements (every bench here moves floats).
  std::uint64_t count() const { return size / 4; }
};

struct CollectiveTable {
  std::vector<CollectiveRow> rows; // rank counts in the order given, sizes ascending within each
  double avg_busbw_gbytes_per_s = 0;
  double wall_s                 = 0;
  std::uint64_t events          = 0;
};

/// The model's plan for one call of `bench` at `bytes` on `gpus` ranks, when the bench is one collective.
std::optional<sim::CollectivePlan> bench_plan(const sim::Topology& topo, const algorithms::CollectiveBench& bench,
                                              int gpus, std::uint64_t bytes);

/// NCCL_ALGO / NCCL_PROTO for a sweep: the topology runs only these (its nccl.algorithms / protocols). A topology
/// without an "nccl" block runs ccsim's ring or hierarchical all-reduce, with the Simple protocol only. Bad names
/// are io::InputError naming `flag_algo` / `flag_proto`.
void force_collective(sim::Topology& topo, const std::optional<std::string>& algo,
                      const std::optional<std::string>& proto, const std::string& flag_algo = "--algo",
                      const std::string& flag_proto = "--proto");

/// nccl-tests' sizes: minbytes, then times the factor (or plus minbytes when the factor is 1) up to maxbytes.
std::vector<std::uint64_t> sweep_sizes(std::uint64_t lo, std::uint64_t hi, std::uint64_t factor);

/// `bench` at every size on every rank count, as nccl-tests would measure it. `on_progress` hears each rank count's
/// messages simulated of those planned.
CollectiveTable run_collective_bench(const sim::Topology& topo, const algorithms::CollectiveBench& bench,
                                     const std::vector<int>& rank_counts, const std::vector<std::uint64_t>& sizes,
                                     sim::Fidelity fidelity, bool with_kernels,
                                     const std::function<void(int ranks, std::uint64_t done, std::uint64_t total)>&
                                         on_progress = {});

/// `ccsim collective --format json`'s document: the op, topology and rank counts, one row per (ranks, size) with
/// nccl-tests' columns (size, count, type, redop, root, time_us, algbw_GBps, busbw_GBps) and what ran (algorithm,
/// protocol, bottleneck, the model's idle-cluster time model_us), the average bus bandwidth (avg_busbw_GBps), and the
/// simulator's wall time and events. GBps is nccl-tests' "GB/s", 1e9 bytes per second; a name ending in gbps is
/// Gbit/s everywhere in ccsim.
nlohmann::json to_json(const CollectiveTable& table, const algorithms::CollectiveBench& bench, const sim::Topology& topo,
                       const std::vector<int>& rank_counts, sim::Fidelity fidelity);

} // namespace ccsim::api
