#pragma once
// What one simulated configuration answers, typed: the fields of `ccsim simulate --format json` (docs/design/DESIGN.md), one
// struct per JSON object. api/run/ReportJson.hpp is its one serialisation (the JSON users read, and what a simulation
// child sends back through its pipe); every caller reads these fields, never the JSON by string keys.

#include "api/run/MemoryFit.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ccsim::api {

/// Where one step's time goes, in seconds, except allreduce_ms.
struct TimeBreakdown {
  double compute_s      = 0; // forward + backward on the critical path (all micro-batches)
  double comm_s         = 0; // time collectives (or pipeline sends) were in flight
  double exposed_comm_s = 0; // communication not hidden under compute
  double compression_s  = 0; // compression kernels
  double optimizer_s    = 0;
  double allreduce_ms   = 0; // the gradient/momentum synchronisation, as a paper's profiler reports it
};

/// Bytes one GPU sends per step.
struct BytesPerGpu {
  double inter_node = 0;
  double intra_node = 0;
};

/// One phase of training (1-bit Adam's warm-up, its compressed stage, ...) alone.
struct PhaseResult {
  std::string name;
  double fraction      = 1; // share of the run's steps
  double step_time_s   = 0;
  double samples_per_s = 0;
  TimeBreakdown breakdown;
  double pipeline_forward_comm_ms  = 0; // per micro-batch, between the first two stages (AQ-SGD Table 3)
  double pipeline_backward_comm_ms = 0;
  BytesPerGpu bytes_per_gpu;
};

/// Memory per GPU (algorithms/MemoryFootprint.hpp), in GB (1e9 bytes).
struct MemoryResult {
  MemoryFit fit; // the verdict, the GB without and with activation recomputation, and the GPU's capacity
  bool activation_recomputation = false;
  double weights_gb = 0, gradients_gb = 0, optimizer_states_gb = 0, compression_buffers_gb = 0,
         optimizer_step_temporaries_gb = 0, activations_gb = 0, activations_recomputed_gb = 0;
  std::string activations_note;
};

/// What a workload's architecture implies at this run's shape (sim/model/TransformerArchitecture.hpp); only for a workload
/// that has one. FLOPs in all three conventions: the run counts `attention_flops`' one.
struct ModelResult {
  std::uint64_t params        = 0;
  std::uint64_t active_params = 0; // per token (k of E experts)
  std::uint64_t tensors       = 0;
  std::string attention_flops;     // "causal" | "full": the convention flops_per_sample (and tflops_per_gpu) count
  double flops_per_sample              = 0;
  double flops_per_sample_causal       = 0;
  double flops_per_sample_full         = 0;
  double flops_per_sample_no_attention = 0;
  double activation_bytes_per_layer    = 0; // one micro-batch on one tensor-parallel rank, stored for backward
};

/// One kernel of the per-operator compute model (sim/compute/OperatorCost.hpp).
struct OperatorResult {
  std::string name;
  std::string pass;  // "forward" | "backward" | "recompute"
  std::string kind;  // "gemm" | "attention" | "elementwise"
  std::string bound; // "compute" | "memory"
  double time_ms = 0, flops = 0, bytes = 0;
  // GEMMs: the shape and the kernel configuration the model chose.
  double m = 0, n = 0, k = 0, batch = 0;
  std::string tile; // "256x128"
  int split_k  = 0;
  double waves = 0;
};

/// A block of kernels (one layer, the embedding, the output layer) with its totals per pass.
struct OperatorBlock {
  double forward_ms = 0, backward_ms = 0, recompute_ms = 0;
  std::vector<OperatorResult> ops;
};

/// What the per-operator model charged for one micro-batch, when it priced the run: the kernels of one layer, of
/// the embedding and of the output layer, and the pipeline stage that sets the pace.
struct OperatorsResult {
  std::string precision; // the GEMMs' number format
  std::string recompute; // "none" | "selective" | "full"
  std::vector<int> layers_per_stage;
  int slowest_stage  = 0; // 0-based
  OperatorBlock layer, embedding, output;
};

/// The random and fixed stragglers of a run (sim/compute/Stragglers.hpp), when it has any.
struct StragglerResult {
  double compute_factor = 1;
  double kernel_factor  = 1;
  double cv             = 0;
  std::uint64_t seed    = 1;
  std::size_t slow_gpus = 0;
};

/// The configuration as simulated: what the request chose and what ccsim derived from it.
struct RunConfig {
  std::string topology, workload, algorithm;
  int gpus = 0, nodes = 0, dp = 0, tp = 0, pp = 0;
  std::optional<int> ep; // expert-parallel degree, for a mixture of experts only
  int vpp = 1;           // model chunks per pipeline rank (interleaved 1F1B); written only when > 1
  int cp = 1;            // context-parallel degree (gpus = dp x tp x cp x pp); written only when > 1
  std::optional<int> zero_stage; // the ZeRO stage; written only when --zero (or --fsdp) chose it
  bool tp_overlap = false;       // tensor-parallel collectives beside their GEMMs (--tp-overlap); written only when on
  /// "blocking" or "overlapped": how a model-parallel pipeline's stages send (--pipeline-p2p); written only for one
  /// (pp > 1, not a pipeline algorithm's GPipe, whose sends always overlap).
  std::string pipeline_p2p;
  std::uint64_t global_batch = 0;
  std::string batch_rule; // which rule set the batch: the flag, the workload's default, or its run rule
  std::uint64_t micro_batch = 0;
  int grad_accumulation     = 0;
  int seq_len               = 0;
  std::string network_model;
  double inter_node_gbps = 0; // per node, Gbit/s
  std::map<std::string, double> params;
  std::string compute_source;
  double forward_ms_per_micro_batch  = 0;
  double backward_ms_per_micro_batch = 0;
  std::optional<StragglerResult> stragglers;
  /// What the step overlaps with compute, when anything (docs/overlap.md): e.g. "bucketed gradient reduction (25 MB
  /// buckets)"; absent: every collective after the last backward pass.
  std::optional<std::string> overlap;
};

/// Where the truth should lie, and why so wide (api/run/Intervals.hpp).
struct Interval {
  double low  = 0;
  double high = 0;
  std::string why;
};

/// One of the busiest links (`--links`).
struct LinkLoad {
  std::string link;
  double bytes       = 0;
  double utilisation = 0;
};

enum class Metric : unsigned char; // api/run/Metrics.hpp: every metric, declared once

struct SimulationReport {
  // Whole-run averages: each phase weighted by its share of the steps.
  double samples_per_s  = 0;
  double step_time_s    = 0;
  double tflops_per_gpu = 0;
  TimeBreakdown breakdown;
  double straggler_wait_s = 0;
  BytesPerGpu bytes_per_gpu;
  double memory_gb_per_gpu = 0;
  MemoryResult memory;
  std::optional<ModelResult> model; // workloads with an architecture
  std::optional<OperatorsResult> operators; // compute priced per operator (sim/compute/OperatorCost.hpp)
  std::vector<PhaseResult> phases;
  RunConfig config;
  double wall_s        = 0; // sim.wall_s: simulator wall-clock seconds
  std::uint64_t events = 0; // sim.events: messages simulated
  std::string fidelity;     // sim.fidelity
  std::optional<std::vector<double>> ranks_idle_s; // with stragglers: each rank's wait per step
  std::optional<std::vector<LinkLoad>> links;      // --links: the busiest links
  std::map<Metric, Interval> intervals;            // per headline metric (api/run/Intervals.hpp)
  /// --links: every link's load per op over time, and --trace: Chrome trace events. Documents for other tools
  /// (plots/link_heatmap.py, Perfetto), made by api/run/TraceJson.hpp; carried as they are written.
  std::optional<nlohmann::json> links_over_time;
  std::optional<nlohmann::json> trace;
};

} // namespace ccsim::api
