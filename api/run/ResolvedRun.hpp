#pragma once
// A request resolved into what the step engine runs: the topology and workload loaded (from a preset, a file or a
// document in memory), the overrides applied, every parameter and the run's shape checked (GPUs, tp x pp, the batch
// rules, the memory per GPU), the algorithm's plan made and the stragglers drawn. Every bad input is an io::InputError
// here, before anything is simulated. Nothing in it touches SimGrid, so any process may resolve.

#include "api/run/MemoryFit.hpp"
#include "api/run/SimulateRequest.hpp"

#include "algorithms/MemoryFootprint.hpp"
#include "algorithms/PlanAlgorithm.hpp"
#include "sim/model/CommPlan.hpp"
#include "sim/collective/Collectives.hpp"
#include "sim/compute/Stragglers.hpp"
#include "sim/platform/Topology.hpp"
#include "sim/model/Workload.hpp"

#include <map>
#include <string>

namespace ccsim::api {

struct ResolvedRun {
  std::string topology_file; // the topology's path (or a document's label): errors about it name this
  sim::Topology topo;
  sim::Workload work;
  const algorithms::PlanAlgorithm* algo = nullptr;
  sim::Fidelity fidelity                = sim::Fidelity::FAST;
  std::string fidelity_name;                // "fast" | "exact", as requested
  algorithms::ParamValues params;           // the algorithm's parameters, defaults filled in
  sim::StepShape shape;
  std::string batch_rule;                   // which rule set the global batch
  sim::StepPlan plan;
  algorithms::MemoryFootprint memory;
  MemoryFit memory_fit;                     // whether it fits the GPUs' memory (api/run/MemoryFit.hpp)
  bool recompute = false;                   // fits only with activation recomputation, or --recompute
  bool zero_given = false;                  // --zero (or --fsdp), or the workload's defaults.zero, chose shape.zero_stage: the report names it
  sim::StragglerModel stragglers;
  sim::StragglerEffect straggling;
  bool links = false, trace = false;
};

/// Topologies and workloads loaded once per name (a preset or a path), for a caller that resolves many requests that
/// share a few files (an experiment's points, checked before the first runs). A document in memory is kept by its
/// label and the document object (InputSource::document, shared by a request's copies and immutable), which the entry
/// holds on to, so no other document can take its address while the entry exists.
struct InputCache {
  template <class T>
  using ByDocument = std::map<std::pair<std::string, const nlohmann::json*>,
                              std::pair<std::shared_ptr<const nlohmann::json>, T>>;
  std::map<std::string, std::string> topology_files;
  std::map<std::string, sim::Topology> topologies;
  std::map<std::string, sim::Workload> workloads;
  ByDocument<sim::Topology> document_topologies;
  ByDocument<sim::Workload> document_workloads;
};

/// Loads and checks everything `request` names; throws io::InputError naming the flag, file and JSON path. With a
/// cache, files already read through it are not read again.
ResolvedRun resolve_run(const SimulateRequest& request, InputCache* cache = nullptr);

/// Loads the topology and workload `request` names (a preset, a path or a document) into `cache`, and the algorithm
/// registry, for a caller about to fork simulations of it: each child then finds them there instead of reading and
/// parsing them again. A load that fails is left out, so resolve_run, in the child, reports it as it would have.
void preload_inputs(const SimulateRequest& request, InputCache& cache);

/// The topology or workload of a source: the preset or file it names, or its document.
sim::Topology load_topology(const InputSource& source);
sim::Workload load_workload(const InputSource& source);
/// What errors about a topology source call it: the resolved path of a preset or file, or a document's label.
std::string topology_location(const InputSource& source);

} // namespace ccsim::api
