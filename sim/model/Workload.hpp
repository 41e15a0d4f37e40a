#pragma once
// A model to simulate (workloads/*.json): its size, its FLOPs, and the per-micro-batch compute times the
// papers measured on each GPU type. Loaded once, validated with JSON paths in every error.

#include "sim/model/CommPlan.hpp"
#include "sim/model/TrainingRecipe.hpp"
#include "sim/model/TransformerArchitecture.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ccsim::sim {

/// Measured (or paper-derived) compute cost of one micro-batch on one GPU type.
struct ComputeProfile {
  std::string gpu;               // matches Topology's gpu.name, e.g. "V100", "A100", "H800"
  std::uint64_t micro_batch = 0; // samples per GPU per micro-batch
  int seq_len = 0;
  int tp = 1;                    // tensor-parallel degree the time was measured with (1 = none)
  int pp = 1;                    // pipeline stages: with pp > 1 the times are those of ONE stage
  double forward_s = 0;
  double backward_s = 0;
  std::string software;          // training stack it was measured on ("" = any); see Topology::software
  std::string source;            // paper table this came from
};

struct Workload {
  std::string name;
  std::string description;
  std::string family;            // "bert", "gpt", "swin", "deberta"; "llama", "mixtral" (Hugging Face's model_type)
  std::uint64_t params = 0;
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int seq_len = 0;
  int vocab = 0;
  int tensors = 0;               // parameter tensors (LAMB-style optimizers work per tensor)
  double flops_per_sample = 0;   // forward + backward model FLOPs for one sample at seq_len
  double grad_bytes = 2;         // bytes per gradient value on the wire in its usual mixed-precision recipe
  std::vector<ComputeProfile> compute;
  /// gpu -> optimizer -> seconds for one optimizer step over the full model on one GPU.
  std::map<std::string, std::map<std::string, double>> optimizer_s;
  // Defaults a run may override from the command line.
  std::uint64_t global_batch = 0;
  std::uint64_t micro_batch = 0;
  int tp = 1;
  int pp = 1;
  int vpp = 1;                   // defaults.vpp: model chunks per pipeline rank (interleaved 1F1B; StepShape::vpp)
  int cp = 1;                    // defaults.cp: context-parallel degree (ring attention; StepShape::cp)
  int micro_batches = 0;         // pipeline micro-batches per step (AQ-SGD); 0 = derived from batches
  /// defaults.zero: the ZeRO stage the workload's recipe runs (StepShape::zero_stage), where the algorithm supports it
  /// and the split allows it; absent: each algorithm's own default (its descriptor's first stage).
  std::optional<int> zero;
  /// A run rule instead of a fixed global batch: the batch grows with data parallelism, global = dp x micro_batch x
  /// grad_accumulation (SDP4Bit's throughput runs: accumulation 1, Appendix B). 0 = the fixed global_batch.
  int grad_accumulation = 0;
  std::string batch_source;      // the paper sentence the batch defaults come from (source_defaults)
  std::string path;              // file it was loaded from
  /// The transformer's description when the workload gives one (sim/model/TransformerArchitecture.hpp): the sizes above
  /// are then derived from it, and memory and message sizes come from it too.
  std::optional<TransformerArchitecture> architecture;
  int ep = 1;                      // expert-parallel degree (defaults.ep; a mixture of experts only)
  bool sequence_parallel = false;  // defaults.sequence_parallel: Megatron's, with tp > 1 (architecture only)
  bool tp_overlap = false;         // defaults.tp_overlap: Megatron-Core's --tp-comm-overlap (needs sequence_parallel)
  /// defaults.pipeline_p2p: "blocking" (the default: each stage waits for its pipeline sends, as Megatron-LM's and
  /// DeepSpeed's schedules do) or "overlapped" (asynchronous sends beside the next unit's compute).
  bool pipeline_p2p_overlapped = false;
  /// defaults.precision: the GEMMs' number format in the per-operator model; absent: the GPU's 16-bit format.
  std::optional<Precision> precision;
  /// defaults.recompute: what the training recipe recomputes in backward (selective: architecture only). A run that
  /// fits the GPUs' memory only with recomputation gets full recomputation whatever this says.
  Recompute recompute = Recompute::NONE;
  /// defaults.framework: the training stack (known_frameworks()); the per-operator model charges its
  /// gpu.compute.framework_efficiency.
  std::string framework = REFERENCE_FRAMEWORK;
  /// "overlap": what the workload's training system overlaps with compute (docs/overlap.md); absent: nothing.
  OverlapSettings overlap;
  std::string overlap_source;      // overlap.source: the paper section or recipe it comes from

  /// Parameters one expert-parallel rank holds before tensor and pipeline parallelism split them: all of a dense
  /// model's, and 1/ep of a mixture's experts (the attention, norms, router and embeddings are replicated).
  double params_held(int expert_parallel) const;
  /// Training FLOPs of one sample of `seq_len` tokens: from the architecture when there is one (attention grows
  /// with the sequence), else flops_per_sample scaled linearly from the workload's own seq_len.
  double flops_per_sample_at(int seq_len) const;
  /// Decoder-only language models (GPT, Llama, Mixtral): trained with Megatron's sharded data parallelism.
  bool decoder_only() const { return family == "gpt" || family == "llama" || family == "mixtral"; }

  /// The profile for this GPU type, micro-batch and tensor parallelism, if the workload has one; one measured
  /// on the same software stack wins over one without a stack.
  std::optional<ComputeProfile> find_compute(const std::string& gpu, std::uint64_t micro_batch, int seq_len,
                                             int tp, const std::string& software = "") const;
  /// optimizer_s for this GPU: "<name>@<software>" first, then "<name>".
  std::optional<double> find_optimizer(const std::string& gpu, const std::string& name,
                                       const std::string& software = "") const;
};

/// Loads and validates a workload file; throws io::InputError with FILE: /path: problem.
Workload load_workload(const std::string& path);
/// The same for a document already in memory (a Python dict, a refit's trial constants): `path` names it in errors,
/// and its stem names the workload when the document has no "name".
Workload workload_from_json(const nlohmann::json& doc, const std::string& path);

} // namespace ccsim::sim
