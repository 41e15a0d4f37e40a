// Reading a workload's `architecture` block and filling in (or checking) the size fields it implies.
#include "sim/model/ArchitectureInput.hpp"

#include "io/JsonInput.hpp"

#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <utility>
#include <vector>

namespace ccsim::sim {

std::optional<TransformerArchitecture> read_architecture(const nlohmann::json& doc, const std::string& path)
{
  const io::JsonObject root(doc, path);
  const auto block = root.object_if("architecture");
  if (!block)
    return std::nullopt;
  const io::JsonObject& o = *block;
  o.allow_only({"layers", "hidden", "heads", "kv_heads", "head_dim", "ffn_hidden", "activation", "norm", "vocab",
                "seq_len", "tied_embeddings", "linear_bias", "positions", "experts", "top_k", "flash_attention",
                "dropout", "attention_flops"});
  namespace range = io::range;
  TransformerArchitecture a;
  a.layers   = o.integer_in("layers", range::kLayers);
  a.hidden   = o.integer_in("hidden", range::kHidden);
  a.heads    = o.integer_in("heads", range::kHeads);
  a.kv_heads = o.integer_in_or("kv_heads", range::kHeads, a.heads);
  if (a.heads % a.kv_heads != 0)
    o.fail_at("kv_heads", fmt::format("{} kv heads do not divide the {} query heads", a.kv_heads, a.heads));
  if (!o.has("head_dim") && a.hidden % a.heads != 0)
    o.fail_at("heads", fmt::format("{} heads do not divide hidden {}: give head_dim", a.heads, a.hidden));
  a.head_dim   = o.integer_in_or("head_dim", range::kHeadDim, a.hidden / a.heads);
  a.ffn_hidden = o.integer_in("ffn_hidden", range::kFfnHidden);
  a.activation = o.choice("activation", {"gelu", "swiglu"}) == "gelu" ? Activation::GELU : Activation::SWIGLU;
  a.norm = o.choice_or("norm", {"layernorm", "rmsnorm"}, "rmsnorm") == "layernorm" ? Norm::LAYERNORM : Norm::RMSNORM;
  a.vocab           = o.integer_in("vocab", range::kVocab);
  a.seq_len         = o.integer_in("seq_len", range::kSeqLen);
  a.tied_embeddings = o.boolean_or("tied_embeddings", false);
  a.linear_bias     = o.boolean_or("linear_bias", false);
  a.positions = o.choice_or("positions", {"learned", "rope"}, "rope") == "learned" ? Positions::LEARNED : Positions::ROPE;
  a.experts   = o.integer_in_or("experts", range::kExperts, 1);
  if (a.moe() && !o.has("top_k"))
    o.fail_at("top_k", fmt::format("missing: a mixture of {} experts needs the experts per token", a.experts));
  a.top_k = o.integer_in_or("top_k", range::kExperts, 1);
  if (a.top_k > a.experts)
    o.fail_at("top_k", fmt::format("{} experts per token but the layer has {}", a.top_k, a.experts));
  a.flash_attention = o.boolean_or("flash_attention", true);
  a.dropout         = o.boolean_or("dropout", false);
  // FLOPs count the attention the kernel computes: FlashAttention skips the masked half of a causal mask; a
  // materialised s x s score matrix is computed whole.
  a.attention_flops = o.choice_or("attention_flops", {"causal", "full"}, a.flash_attention ? "causal" : "full") ==
                              "causal"
                          ? AttentionFlops::CAUSAL
                          : AttentionFlops::FULL;
  // The derived sizes must stay inside the limits every workload field has (keeps parameter_counts exact).
  const double params = parameter_count_estimate(a);
  if (params > range::kParams.hi)
    o.fail(fmt::format("implies {:.4g} parameters, above the limit of {:.0e}", params, range::kParams.hi));
  if (static_cast<double>(tensor_count(a)) > range::kTensors.hi)
    o.fail(fmt::format("implies {} parameter tensors, above the limit of {:.0e}", tensor_count(a), range::kTensors.hi));
  const double flops = flops_per_sample(a, a.seq_len);
  if (flops > range::kFlopsPerSample.hi)
    o.fail(fmt::format("implies {:.4g} FLOPs per sample, above the limit of {:.0e}", flops, range::kFlopsPerSample.hi));
  return a;
}

nlohmann::json with_architecture_fields(const nlohmann::json& doc, const TransformerArchitecture& arch,
                                        const std::string& path)
{
  const ParameterCounts p = parameter_counts(arch);
  const std::vector<std::pair<const char*, double>> derived = {
      {"params", static_cast<double>(p.total)},
      {"layers", static_cast<double>(arch.layers)},
      {"hidden", static_cast<double>(arch.hidden)},
      {"heads", static_cast<double>(arch.heads)},
      {"seq_len", static_cast<double>(arch.seq_len)},
      {"vocab", static_cast<double>(arch.vocab)},
      {"tensors", static_cast<double>(tensor_count(arch))},
      {"flops_per_sample", flops_per_sample(arch, arch.seq_len)},
  };
  const io::JsonObject root(doc, path);
  nlohmann::json out = doc;
  for (const auto& [key, value] : derived) {
    if (!root.has(key)) {
      if (std::string(key) == "flops_per_sample")
        out[key] = value;
      else
        out[key] = static_cast<std::uint64_t>(value);
      continue;
    }
    const double given = root.number(key); // its range is checked where the workload reads it
    if (std::abs(given - value) > io::limits::kArchitectureAgreement * value)
      root.fail_at(key, fmt::format("{:.10g} given but the architecture implies {:.10g} ({:+.3f} %, more than {:g} % "
                                    "apart): drop the field or fix one of them",
                                    given, value, 100 * (given - value) / value,
                                    100 * io::limits::kArchitectureAgreement));
  }
  return out;
}

} // namespace ccsim::sim
