// nccl-tests' collectives and the algorithms' compressed ones as op lists.
#include "algorithms/CollectiveOps.hpp"

#include "algorithms/PlanHelpers.hpp"
#include "algorithms/onebit/OnebitPlan.hpp"
#include "algorithms/sharded/ShardedPlan.hpp"
#include "numerics/OnebitLayout.hpp"

namespace ccsim::algorithms {

namespace {
// SDP4Bit's group sizes (ShardedPlan's defaults, notes §7): weights 2048 values per scale, gradients 128.
constexpr std::size_t WEIGHT_GROUP = 2048;
constexpr std::size_t GRAD_GROUP   = 128;
} // namespace

const std::vector<CollectiveBench>& collective_benches()
{
  static const std::vector<CollectiveBench> b = {
      {"all_reduce", "sum", "ring or hierarchical all-reduce (nccl-tests all_reduce_perf)"},
      {"all_gather", "none", "ring all-gather (all_gather_perf)"},
      {"reduce_scatter", "sum", "ring reduce-scatter (reduce_scatter_perf)"},
      {"alltoall", "none", "all-to-all (alltoall_perf)"},
      {"sendrecv", "sum", "send to the next rank, receive from the previous (sendrecv_perf)"},
      {"onebit_allreduce", "sum", "1-bit Adam/LAMB's compressed allreduce of an fp32 buffer (signs + scales)"},
      {"quantized_reduce_scatter", "sum", "SDP4Bit's TLq-HS: 8-bit intra-node then 4-bit inter-node all-to-all"},
      {"quantized_all_gather", "none", "SDP4Bit's qWD: 4-bit all-gather (group 2048)"},
  };
  return b;
}

const CollectiveBench* find_collective_bench(const std::string& name)
{
  for (const auto& b : collective_benches())
    if (b.name == name)
      return &b;
  return nullptr;
}

std::string collective_bench_names()
{
  std::string s;
  for (const auto& b : collective_benches())
    s += (s.empty() ? "" : "|") + b.name;
  return s;
}

double bus_bandwidth_factor(const CollectiveBench& bench, int n)
{
  const double ranks = n;
  if (bench.name == "all_reduce" || bench.name == "onebit_allreduce")
    return 2 * (ranks - 1) / ranks;
  if (bench.name == "sendrecv")
    return 1;
  return (ranks - 1) / ranks;
}

std::vector<sim::Op> collective_bench_ops(const CollectiveBench& bench, std::uint64_t bytes, int n, int ranks_per_node)
{
  using sim::Collective;
  using sim::GroupKind;
  const std::size_t numel = bytes / 4; // the fp32 values of the buffer
  if (bench.name == "all_reduce")
    return {collective("all_reduce", Collective::ALL_REDUCE, GroupKind::DATA_PARALLEL, bytes)};
  if (bench.name == "all_gather")
    return {collective("all_gather", Collective::ALL_GATHER, GroupKind::DATA_PARALLEL, bytes)};
  if (bench.name == "reduce_scatter")
    return {collective("reduce_scatter", Collective::REDUCE_SCATTER, GroupKind::DATA_PARALLEL, bytes)};
  if (bench.name == "alltoall")
    return {collective("alltoall", Collective::ALL_TO_ALL, GroupKind::DATA_PARALLEL, bytes)};
  if (bench.name == "sendrecv")
    return {collective("sendrecv", Collective::SEND_RECV, GroupKind::DATA_PARALLEL, bytes)};
  if (bench.name == "onebit_allreduce")
    return onebit_allreduce_ops(numerics::OnebitLayout(numel, static_cast<std::size_t>(n)));
  if (bench.name == "quantized_reduce_scatter")
    return sharded_gradient_ops(GradComm::TLQ_HS, numel, static_cast<std::uint64_t>(std::max(1, ranks_per_node)),
                                GRAD_GROUP);
  // quantized_all_gather: the gathered output holds `numel` values; qWD sends them at 4 bits.
  return sharded_weight_ops(WeightComm::QWD_INT4, numel, static_cast<std::uint64_t>(n), WEIGHT_GROUP);
}

} // namespace ccsim::algorithms
