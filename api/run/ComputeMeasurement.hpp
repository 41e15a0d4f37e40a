#pragma once
// A compute measurement document (`ccsim bench-compute --format json`, with the attention and layer timings that
// scripts/device/merge-measurements.py adds from a PyTorch run on the same device) read through io/JsonObject.hpp:
// every field checked, one-line errors naming the file and the JSON path.

#include "sim/compute/KernelCost.hpp"
#include "sim/model/TrainingRecipe.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ccsim::api {

struct MeasuredGemm {
  std::string layer, op;
  sim::GemmShape shape;
  sim::Precision precision = sim::Precision::BF16;
  bool fp32_accumulate     = false;
  double seconds           = 0;
};

struct MeasuredElementwise {
  std::string kernel;
  double bytes = 0, seconds = 0;
};

/// Fused attention forward and backward of a causal (batch, heads, seq, head_dim) in bf16, by the kernel that ran it:
/// "flash" (PyTorch's FlashAttention backend) or "cudnn" (cuDNN's fused attention, Transformer Engine's on Hopper).
struct MeasuredAttention {
  std::string backend;
  std::int64_t batch = 0, heads = 0, seq = 0, head_dim = 0;
  double forward_s = 0, backward_s = 0;
};

/// One Megatron-style GPT layer (biases, dropout, LayerNorm, tanh-GELU FFN, FlashAttention) at tp 1 in bf16.
struct MeasuredLayer {
  std::string attention_backend; // which attention rows' kernel the layer ran
  std::int64_t hidden = 0, heads = 0, ffn = 0, seq = 0, micro_batch = 0;
  double forward_s = 0, forward_backward_s = 0;
};

struct ComputeMeasurement {
  std::string file; // the document it was read from, for the errors of what is computed from it
  std::string source, device;
  int sms         = 0;
  double launch_s = 0;
  std::vector<MeasuredElementwise> elementwise;
  std::vector<MeasuredGemm> gemms; // rows the device refused (an "error" member) are left out
  std::vector<MeasuredAttention> attention;
  std::vector<MeasuredLayer> layers;
};

/// `doc`, read from `file`, checked field by field. Throws io::InputError naming the file and the JSON path.
ComputeMeasurement read_compute_measurement(const nlohmann::json& doc, const std::string& file);

} // namespace ccsim::api
