#pragma once
// How a transformer is trained beyond its architecture: the number format its GEMMs run in, and which activations the
// backward pass recomputes instead of storing (Korthikanti et al. 2022 §2 and §5). Both change what compute costs
// (sim/compute/TransformerOps.hpp) and are a workload's run rule (workloads/SCHEMA.md, defaults.precision and
// defaults.recompute).

#include <optional>
#include <string>
#include <vector>

namespace ccsim::sim {

/// The tensor-core input format of a GEMM. Activations between GEMMs stay 16-bit in every format but TF32 (fp32);
/// FP8 GEMMs read 1-byte inputs and write 16-bit outputs (Transformer Engine's recipe).
enum class Precision { TF32, FP16, BF16, FP8 };

/// Which part of each layer's forward the backward pass runs again.
enum class Recompute {
  NONE,      // every activation backward needs is stored
  SELECTIVE, // the attention core only (QK^T, softmax, its dropout, attention over V): Korthikanti §5
  FULL,      // the whole layer from its input (Chen et al. 2016; Megatron's --recompute-granularity full)
};

/// The training stacks a workload may name (defaults.framework). The per-operator model's constants were fitted on
/// Megatron-LM's runs (Korthikanti et al. 2022), so its efficiency is 1 by definition; another stack's is a constant
/// of the GPU's compute block (gpu.compute.framework_efficiency).
inline constexpr const char* REFERENCE_FRAMEWORK = "megatron-lm";
const std::vector<std::string>& known_frameworks();
bool is_known_framework(const std::string& name);

/// How a data-parallel algorithm's pipeline stages send (defaults.pipeline_p2p, --pipeline-p2p): "blocking", each stage
/// waits for its messages (the default), or "overlapped" (PipelineComm::blocking_sends).
inline constexpr const char* BLOCKING_PIPELINE_P2P   = "blocking";
inline constexpr const char* OVERLAPPED_PIPELINE_P2P = "overlapped";
const std::vector<std::string>& pipeline_p2p_modes();

std::string to_string(Precision p);
std::string to_string(Recompute r);
/// "tf32", "fp16", "bf16", "fp8" (and "none", "selective", "full"); nullopt for anything else.
std::optional<Precision> parse_precision(const std::string& name);
std::optional<Recompute> parse_recompute(const std::string& name);

/// Bytes of one GEMM input element in this format (TF32 tensors are stored as fp32).
double input_bytes(Precision p);
/// Bytes of one activation element stored between kernels (16-bit, fp32 for TF32 training).
double activation_bytes(Precision p);

} // namespace ccsim::sim
