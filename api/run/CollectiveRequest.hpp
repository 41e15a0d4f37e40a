#pragma once
// One collective over nccl-tests' size sweep as asked for (`ccsim collective`, ccsim.collective), and the same
// resolved: the operation found, the topology loaded with its overrides and forced algorithm or protocol, every rank
// count checked against it, the sizes listed. Every bad input is an io::InputError here, before anything runs.

#include "api/run/CollectiveSweep.hpp"
#include "api/run/SimulateRequest.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ccsim::api {

struct CollectiveRequest {
  std::string op = "all_reduce";      // algorithms::find_collective_bench's names
  InputSource topology;
  std::vector<int> gpus;              // rank counts, each swept over the sizes
  std::uint64_t minbytes   = 8;
  std::uint64_t maxbytes   = 128ull << 20;
  std::uint64_t stepfactor = 2;       // times each step (1: plus minbytes)
  std::string fidelity     = "fast";  // "exact" | "fast"
  std::optional<double> bandwidth_gbps, latency_us;
  bool with_kernels = false;          // compressed collectives: count their compression kernels
  std::optional<std::string> algo, proto; // as NCCL_ALGO / NCCL_PROTO
};

struct ResolvedCollective {
  const algorithms::CollectiveBench* bench = nullptr;
  sim::Topology topo;
  std::vector<int> ranks;
  std::vector<std::uint64_t> sizes;
  sim::Fidelity fidelity = sim::Fidelity::FAST;
  bool with_kernels      = false;
};

ResolvedCollective resolve_collective(const CollectiveRequest& request);

} // namespace ccsim::api
