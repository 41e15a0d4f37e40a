// Resolving a collective sweep (CollectiveRequest.hpp).
#include "api/run/CollectiveRequest.hpp"

#include "api/run/ResolvedRun.hpp"

#include "io/JsonInput.hpp"

#include <fmt/format.h>

namespace ccsim::api {

ResolvedCollective resolve_collective(const CollectiveRequest& req)
{
  ResolvedCollective r;
  r.bench = algorithms::find_collective_bench(req.op);
  if (r.bench == nullptr)
    throw io::InputError("--op", "", io::echo(req.op) + " is not one of: " + algorithms::collective_bench_names());
  if (req.maxbytes < req.minbytes)
    throw io::InputError("--maxbytes", "", fmt::format("{} is below --minbytes {}", req.maxbytes, req.minbytes));
  if (req.fidelity != "exact" && req.fidelity != "fast")
    throw io::InputError("--fidelity", "", io::echo(req.fidelity) + " is not one of: exact, fast");
  r.fidelity = req.fidelity == "exact" ? sim::Fidelity::EXACT : sim::Fidelity::FAST;
  r.topo     = load_topology(req.topology);
  if (req.bandwidth_gbps)
    sim::override_inter_node_bandwidth(r.topo, *req.bandwidth_gbps);
  if (req.latency_us)
    sim::override_inter_node_latency(r.topo, *req.latency_us);
  force_collective(r.topo, req.algo, req.proto);
  if (req.gpus.empty())
    throw io::InputError("--gpus", "", "names no rank count (give one, or a list)");
  for (const auto n : req.gpus)
    if (n > r.topo.max_gpus())
      throw io::InputError("--gpus", "", fmt::format("{} GPUs requested but topology {} has {}", n, r.topo.name,
                                                     r.topo.max_gpus()));
  r.ranks        = req.gpus;
  r.sizes        = sweep_sizes(req.minbytes, req.maxbytes, req.stepfactor);
  r.with_kernels = req.with_kernels;
  return r;
}

} // namespace ccsim::api
