// Names and element sizes of the training formats and recomputation modes.
#include "sim/model/TrainingRecipe.hpp"

#include <algorithm>

namespace ccsim::sim {

const std::vector<std::string>& known_frameworks()
{
  // megatron-deepspeed: Megatron-DeepSpeed with DeepSpeed's pipeline engine, as MT-NLG (Smith et al. 2022) and BLOOM
  // (bigscience tr11) ran it.
  static const std::vector<std::string> names{REFERENCE_FRAMEWORK, "megatron-deepspeed"};
  return names;
}

bool is_known_framework(const std::string& name)
{
  const auto& names = known_frameworks();
  return std::find(names.begin(), names.end(), name) != names.end();
}

const std::vector<std::string>& pipeline_p2p_modes()
{
  static const std::vector<std::string> names{BLOCKING_PIPELINE_P2P, OVERLAPPED_PIPELINE_P2P};
  return names;
}

std::string to_string(Precision p)
{
  switch (p) {
  case Precision::TF32: return "tf32";
  case Precision::FP16: return "fp16";
  case Precision::BF16: return "bf16";
  case Precision::FP8: return "fp8";
  }
  return "bf16";
}

std::string to_string(Recompute r)
{
  switch (r) {
  case Recompute::NONE: return "none";
  case Recompute::SELECTIVE: return "selective";
  case Recompute::FULL: return "full";
  }
  return "none";
}

std::optional<Precision> parse_precision(const std::string& name)
{
  for (const Precision p : {Precision::TF32, Precision::FP16, Precision::BF16, Precision::FP8})
    if (name == to_string(p))
      return p;
  return std::nullopt;
}

std::optional<Recompute> parse_recompute(const std::string& name)
{
  for (const Recompute r : {Recompute::NONE, Recompute::SELECTIVE, Recompute::FULL})
    if (name == to_string(r))
      return r;
  return std::nullopt;
}

double input_bytes(Precision p)
{
  return p == Precision::TF32 ? 4 : p == Precision::FP8 ? 1 : 2;
}

double activation_bytes(Precision p)
{
  return p == Precision::TF32 ? 4 : 2;
}

} // namespace ccsim::sim
