// The train parameter table. Ranges are what the update rules are defined for (a decay rate in [0, 1), a step
// count >= 1, bits the int8 codes can hold), not tuning advice.
#include "algorithms/TrainParams.hpp"

#include "algorithms/LrSchedule.hpp"

#include "numerics/MomentumMask.hpp"
#include "numerics/Optimizers.hpp"

#include "io/JsonInput.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace ccsim::algorithms {

namespace {
using List = std::vector<std::string>;

List concat(std::initializer_list<List> parts)
{
  List out;
  for (const auto& p : parts)
    out.insert(out.end(), p.begin(), p.end());
  return out;
}

const List ONEBIT_LAMB  = {"onebit-lamb", "lamb-basic-1bit"};
const List SPARSE_LAMB  = {"slamb", "topk-lamb", "randk-lamb"};
const List ADAMS        = {"adam", "onebit-adam", "naive-1bit-adam"};
const List ADAM_FORMULA = {"adam", "naive-1bit-adam"}; // 1-bit Adam keeps DeepSpeed's own formula
const List LAMBS        = concat({{"lamb"}, ONEBIT_LAMB, SPARSE_LAMB});
const List DATA_PARALLEL = concat({ADAMS, LAMBS});
const List SHARDED      = {"megatron-dp", "sdp4bit", "qwd", "qw", "tlq", "tlq-hs", "ulq", "zeropp"};
const List PIPELINE     = {"fp32-pipeline", "directq", "aq-sgd"};
} // namespace

const std::vector<TrainParamSpec>& train_param_specs()
{
  static const std::vector<TrainParamSpec> specs = {
      {"lr", "learning rate (the peak of a schedule). Default: 0.003 (fine-tuning: 0.0003), or on char-gpt the rate of "
       "the claim the algorithms test (ccsim train says which ran)", {0, 10, true}, false, concat({{"sgd"}, DATA_PARALLEL, SHARDED, PIPELINE})},
      {"lr_schedule", "constant, bert (1-bit Adam §7.1: linear warm-up over 8.2 %, then x0.99 per 0.34 % of the steps), "
       "linear (LAMB: 10 % linear warm-up, linear decay to 0), onebit-lamb (1-bit LAMB §6.1: x12 geometric warm-up "
       "over 7.5 %, then x0.9 per 4.2 %) or slamb (SLAMB G.1: linear warm-up over 28.4 %, then (1 - t/T)^0.5); lr is "
       "the peak. Default: the schedule of the paper whose claim the algorithms test (ccsim train says which ran)",
       {0, static_cast<double>(lr_schedule_names().size() - 1)}, true, DATA_PARALLEL, lr_schedule_names()},
      {"beta1", "first-moment decay (sgd: momentum)", {0, 1}, false, concat({{"sgd"}, DATA_PARALLEL})},
      {"beta2", "second-moment decay", {0, 0.999999}, false, DATA_PARALLEL},
      {"eps", "added to sqrt(v)", {0, 1, true}, false, DATA_PARALLEL},
      {"weight_decay", "weight decay, added to the update (adam_variant=torch: to the gradient)", {0, 10}, false, concat({DATA_PARALLEL, SHARDED, PIPELINE})},
      {"bias_correction", "1 = Adam's bias correction, 0 = none (BertAdam); default 0 with apex, 1 with torch/adamw",
       {0, 1}, true, ADAM_FORMULA},
      {"adam_variant", "Adam's formula: apex (legacy fused Adam, the default), torch (Adam, L2) or adamw",
       {0, static_cast<double>(numerics::adam_variant_names().size() - 1)}, true, ADAM_FORMULA,
       numerics::adam_variant_names()},
      {"freeze_step", "last warm-up step: the variance freezes after it", {1, 1e9}, true,
       concat({{"onebit-adam"}, ONEBIT_LAMB})},
      {"momentum_mask", "none (DeepSpeed's default) or auto: keep the momentum at 0 where every warm-up gradient was 0 "
       "(DeepSpeed's exp_avg_mask, derived instead of given)",
       {0, static_cast<double>(numerics::momentum_mask_names().size() - 1)}, true, concat({{"onebit-adam"}, ONEBIT_LAMB}),
       numerics::momentum_mask_names()},
      {"compression_unit", "model (one compressed allreduce for the whole model: DeepSpeed under fp16) or tensor "
       "(one per parameter tensor, each with its own scale and error feedback: DeepSpeed in fp32). Default: tensor in "
       "a 1-bit Adam comparison on char-gpt, else model (ccsim train says which ran)",
       {0, static_cast<double>(numerics::compression_unit_names().size() - 1)}, true,
       {"onebit-adam", "naive-1bit-adam"}, numerics::compression_unit_names()},
      {"c_min", "lower clip of LAMB's trust ratio", {0, 1e6}, false, LAMBS},
      {"c_max", "upper clip of LAMB's trust ratio", {0, 1e6, true}, false, LAMBS},
      {"beta3", "decay of the LAMB ratio average (1-bit LAMB) / staleness (SLAMB)", {0, 1}, false,
       concat({ONEBIT_LAMB, {"slamb"}})},
      {"r_min", "1-bit LAMB: lower clip of the coefficient ratio", {0, 1e3, true}, false, ONEBIT_LAMB},
      {"r_max", "1-bit LAMB: upper clip of the coefficient ratio", {0, 1e3, true}, false, ONEBIT_LAMB},
      {"r_threshold", "1-bit LAMB: ratio change that freezes the coefficient", {0, 1e3}, false, ONEBIT_LAMB},
      {"k", "fraction of coordinates communicated", {1e-6, 1}, false, SPARSE_LAMB},
      {"H", "SLAMB: steps between model averages", {1, 1e9}, true, {"slamb"}},
      {"seed", "seed of the shared random-k mask", {0, 9007199254740992.0}, true, SPARSE_LAMB},
      {"gpus_per_node", "workers per node (two-level gradients); must divide --workers", {1, 1024}, true, SHARDED},
      {"pp", "pipeline stages", {2, 16}, true, PIPELINE},
      {"fw_bits", "bits per forward activation value", {1, 8}, true, PIPELINE},
      {"bw_bits", "bits per backward gradient value", {1, 8}, true, PIPELINE},
      {"train_examples", "fixed training examples (0 = the model's default)", {0, 16384}, true, PIPELINE},
  };
  return specs;
}

const TrainParamSpec* find_train_param(const std::string& key)
{
  for (const auto& s : train_param_specs())
    if (s.key == key)
      return &s;
  return nullptr;
}

double parse_train_param(const TrainParamSpec& spec, const std::string& text)
{
  if (spec.choices.empty())
    return io::parse_number(text, spec.range, "--param " + spec.key);
  const auto it = std::find(spec.choices.begin(), spec.choices.end(), text);
  if (it == spec.choices.end())
    throw io::InputError("--param " + spec.key, "",
                         fmt::format("{} is not one of: {}", io::echo(text), fmt::join(spec.choices, ", ")));
  return static_cast<double>(it - spec.choices.begin());
}

std::string train_param_values(const TrainParamSpec& spec)
{
  if (!spec.choices.empty())
    return fmt::format("{}", fmt::join(spec.choices, "|"));
  return fmt::format("[{:g}, {:g}]{}", spec.range.lo, spec.range.hi, spec.integer ? ", whole" : "");
}

bool train_param_applies(const TrainParamSpec& spec, const std::string& algorithm)
{
  return std::find(spec.algorithms.begin(), spec.algorithms.end(), algorithm) != spec.algorithms.end();
}

numerics::Hyper hyper_for(const std::string& algorithm, const numerics::Hyper& hyper)
{
  numerics::Hyper out;
  for (const auto& [key, value] : hyper) {
    const auto* spec = find_train_param(key);
    if (spec == nullptr || train_param_applies(*spec, algorithm))
      out[key] = value;
  }
  return out;
}

void check_train_params(const std::string& algorithm, const numerics::Hyper& hyper, int workers)
{
  for (const auto& [key, value] : hyper) {
    const auto* spec = find_train_param(key);
    if (spec == nullptr || !train_param_applies(*spec, algorithm)) {
      std::string accepted;
      for (const auto& s : train_param_specs())
        if (train_param_applies(s, algorithm))
          accepted += (accepted.empty() ? "" : ", ") + s.key;
      throw io::InputError("--param", "", fmt::format("{} is not a parameter of {} (accepted: {})", io::echo(key),
                                                      algorithm, accepted.empty() ? "none" : accepted));
    }
    io::check_range(value, spec->range, spec->integer, "--param " + key);
  }
  auto at = [&](const char* key, double fallback) {
    const auto it = hyper.find(key);
    return it == hyper.end() ? fallback : it->second;
  };
  // Defaults as the updates use them (numerics/LayerwiseOptimizers.cpp): LAMB clips to [0.01, 0.3], SLAMB's
  // reference to [0.01, 1000]; 1-bit LAMB's ratio to [0.5, 4].
  const double c_max_default = algorithm == "slamb" ? 1000 : 0.3;
  if (at("c_min", 0.01) > at("c_max", c_max_default))
    throw io::InputError("--param c_min", "", fmt::format("must not exceed c_max ({} > {})", at("c_min", 0.01),
                                                          at("c_max", c_max_default)));
  if (at("r_min", 0.5) > at("r_max", 4.0))
    throw io::InputError("--param r_min", "", fmt::format("must not exceed r_max ({} > {})", at("r_min", 0.5),
                                                          at("r_max", 4.0)));
  if (hyper.count("gpus_per_node") != 0 && workers % static_cast<int>(at("gpus_per_node", 4)) != 0)
    throw io::InputError("--param gpus_per_node", "",
                         fmt::format("{} does not divide the {} workers", at("gpus_per_node", 4), workers));
}

} // namespace ccsim::algorithms
