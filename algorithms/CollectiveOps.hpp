#pragma once
// The collectives `ccsim collective` benchmarks, as nccl-tests names and measures them, plus the compressed
// collectives of the algorithms built from the same op lists the algorithms' plans use (so a compressed
// collective here sends exactly what the algorithm sends).
//
// Size convention (nccl-tests, src/common.cu setupArgs / *GetBw): `bytes` is the buffer nccl-tests prints as
// "size" for a float buffer — all_reduce: each rank's buffer; all_gather: the gathered output; reduce_scatter:
// each rank's full input; alltoall: each rank's send buffer; sendrecv: each rank's buffer. The compressed collectives take the fp32 buffer of
// their uncompressed twin (onebit_allreduce: all_reduce; quantized_reduce_scatter: reduce_scatter;
// quantized_all_gather: all_gather) and compress it as the algorithm would. algbw = bytes / time for all.

#include "sim/model/CommPlan.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace ccsim::algorithms {

struct CollectiveBench {
  std::string name;        // --op value
  std::string nccl_redop;  // nccl-tests' "redop" column: "sum" or "none"
  std::string description;
};

/// Every --op, in help order.
const std::vector<CollectiveBench>& collective_benches();
/// nullptr when no collective has that name.
const CollectiveBench* find_collective_bench(const std::string& name);
/// Every --op, in help order, as "all_reduce|all_gather|...".
std::string collective_bench_names();

/// nccl-tests' bus-bandwidth factor for `n` ranks (doc/PERFORMANCE.md): all_reduce 2(n-1)/n, all_gather,
/// reduce_scatter and alltoall (n-1)/n, sendrecv 1; the compressed ones use their uncompressed twin's.
double bus_bandwidth_factor(const CollectiveBench& bench, int n);

/// The ops of one `bench` call on `bytes` over one group of `n` ranks with `ranks_per_node` of them per node (the
/// data-parallel group of a dp = n run). Kernels are included for the compressed collectives; the caller decides
/// whether to time them.
std::vector<sim::Op> collective_bench_ops(const CollectiveBench& bench, std::uint64_t bytes, int n, int ranks_per_node);

} // namespace ccsim::algorithms
