#pragma once
// One configuration to simulate, as the command line, an experiment point or a Python call states it: presets or
// files (or JSON documents held in memory) and the flags. api/run/ResolvedRun.hpp turns it into loaded, checked
// objects; api/run/Simulation.hpp simulates it.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace ccsim::api {

/// A topology or workload: a preset name or a path, or a JSON document held in memory (a Python dict, a refit's trial
/// constants). For a document, `name` is what error messages call it and what the unnamed preset is named after
/// (its stem, as for a file).
struct InputSource {
  std::string name;
  // Shared and immutable: the copies of a request (a refit's points on one trial topology) hold one document, which
  // InputCache recognises by its address instead of comparing or serialising it.
  std::shared_ptr<const nlohmann::json> document;

  InputSource() = default;
  InputSource(std::string preset_or_path) : name(std::move(preset_or_path)) {} // NOLINT: a name reads as a source
  InputSource(const char* preset_or_path) : name(preset_or_path) {}            // NOLINT
  static InputSource from_document(nlohmann::json doc, std::string label)
  {
    InputSource s(std::move(label));
    s.document = std::make_shared<const nlohmann::json>(std::move(doc));
    return s;
  }
  bool empty() const { return name.empty() && !document; }
};

struct SimulateRequest {
  InputSource topology;
  InputSource workload;
  std::string algorithm; // registered name
  int gpus = 0;
  std::optional<std::uint64_t> global_batch;
  std::optional<std::uint64_t> micro_batch;
  std::optional<int> tp;
  std::optional<int> pp;
  std::optional<int> vpp;                   // --vpp: model chunks per pipeline rank (interleaved 1F1B)
  std::optional<int> cp;                    // --cp: context-parallel degree (ring attention over the sequence)
  std::optional<double> bandwidth_gbps;     // overrides the inter-node bandwidth
  std::optional<double> latency_us;         // overrides the inter-node latency
  std::optional<std::string> network_model; // "rdma" | "tcp": overrides the topology's choice
  std::map<std::string, std::string> params; // --param key=value (algorithm and workload overrides)
  std::string fidelity = "fast";             // "exact" | "fast"
  bool links = false;                        // add the busiest-links report and the per-link load over time
  bool trace = false;                        // add "trace": Chrome trace events of one step per phase
  bool allow_oom = false;                    // simulate a run that does not fit the GPUs' memory (gpu.memory_gb)
  std::map<int, double> slow_gpus;           // --slow-gpu RANK:FACTOR: compute speed of single GPUs
  double straggler_cv = 0;                   // --straggler-cv: per-step lognormal compute noise of every GPU
  std::uint64_t straggler_seed = 1;          // --straggler-seed
  // What the training system overlaps (docs/overlap.md); each unset one is the workload's "overlap" block's.
  std::optional<std::string> overlap;        // --overlap none|bucketed: the gradient reduction
  std::optional<double> bucket_mb;           // --bucket-mb: bucket size, MB
  std::optional<bool> param_prefetch;        // --param-prefetch on|off
  /// --recompute none|selective|full (the bare flag: full); unset: the workload's defaults.recompute, and full where
  /// the run fits only with it. An explicit none refuses a run that fits only with recomputation.
  std::optional<std::string> recompute;
  /// --framework megatron-lm|megatron-deepspeed: the training stack; unset: the workload's defaults.framework.
  std::optional<std::string> framework;
  /// --memory-headroom-gb: GB per GPU kept from the model (CUDA context, allocator fragmentation); unset: the
  /// topology's gpu.memory_headroom_gb.
  std::optional<double> memory_headroom_gb;
  /// --zero 0|1|2|3 (or --fsdp's names): the ZeRO stage, one the algorithm's descriptor supports; unset: the first it
  /// lists, what it ran before issue 41 (algorithms/AlgorithmDescriptor.hpp).
  std::optional<int> zero;
  /// --tp-overlap on|off (the bare flag: on): Megatron-Core's tensor-parallel communication overlap with the GEMMs;
  /// unset: the workload's defaults.tp_overlap where tp > 1.
  std::optional<bool> tp_overlap;
  /// --pipeline-p2p blocking|overlapped: whether a model-parallel pipeline's stages wait for their sends
  /// (sim::PipelineComm::blocking_sends); unset: the workload's defaults.pipeline_p2p (blocking unless it says otherwise).
  std::optional<std::string> pipeline_p2p;
};

} // namespace ccsim::api
