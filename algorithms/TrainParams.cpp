// The train parameters: the declarations several families share, the help order, and the checks.
#include "algorithms/TrainParams.hpp"

#include "algorithms/LrSchedule.hpp"
#include "algorithms/Registry.hpp"

#include "numerics/MomentumMask.hpp"
#include "numerics/Optimizers.hpp"

#include "io/JsonInput.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace ccsim::algorithms {

namespace train_keys {
namespace {
/// A word parameter: its index in `words`.
ParamSpec words(std::string key, std::string doc, const std::vector<std::string>& words)
{
  return {std::move(key), 0, std::move(doc), {0, static_cast<double>(words.size() - 1)}, true, words};
}
} // namespace

ParamSpec lr()
{
  return {"lr", 0,
          "learning rate (the peak of a schedule). Default: 0.003 (fine-tuning: 0.0003), or on char-gpt the rate of the "
          "claim the algorithms test (ccsim train says which ran)",
          {0, 10, true}};
}

ParamSpec lr_schedule()
{
  return words("lr_schedule",
               "constant, bert (1-bit Adam §7.1: linear warm-up over 8.2 %, then x0.99 per 0.34 % of the steps), "
               "linear (LAMB: 10 % linear warm-up, linear decay to 0), onebit-lamb (1-bit LAMB §6.1: x12 geometric "
               "warm-up over 7.5 %, then x0.9 per 4.2 %) or slamb (SLAMB G.1: linear warm-up over 28.4 %, then "
               "(1 - t/T)^0.5); lr is the peak. Default: the schedule of the paper whose claim the algorithms test "
               "(ccsim train says which ran)",
               lr_schedule_names());
}

ParamSpec beta1() { return {"beta1", 0, "first-moment decay (sgd: momentum)", {0, 1}}; }
ParamSpec beta2() { return {"beta2", 0, "second-moment decay", {0, 0.999999}}; }
ParamSpec eps() { return {"eps", 0, "added to sqrt(v)", {0, 1, true}}; }

ParamSpec weight_decay()
{
  return {"weight_decay", 0, "weight decay, added to the update (adam_variant=torch: to the gradient)", {0, 10}};
}

ParamSpec bias_correction()
{
  return {"bias_correction", 0,
          "1 = Adam's bias correction, 0 = none (BertAdam); default 0 with apex, 1 with torch/adamw", {0, 1}, true};
}

ParamSpec adam_variant()
{
  return words("adam_variant", "Adam's formula: apex (legacy fused Adam, the default), torch (Adam, L2) or adamw",
               numerics::adam_variant_names());
}

// Defaults as the updates use them (numerics/LayerwiseOptimizers.cpp): LAMB clips to [0.01, 0.3], SLAMB's reference
// to [0.01, 1000]; check_train_params compares a given bound with the other's default.
ParamSpec c_min() { return {"c_min", 0.01, "lower clip of LAMB's trust ratio", {0, 1e6}}; }

ParamSpec c_max(double update_default)
{
  return {"c_max", update_default, "upper clip of LAMB's trust ratio", {0, 1e6, true}};
}

ParamSpec beta3()
{
  return {"beta3", 0, "decay of the LAMB ratio average (1-bit LAMB) / staleness (SLAMB)", {0, 1}};
}

std::vector<ParamSpec> data_parallel(std::vector<ParamSpec> more)
{
  std::vector<ParamSpec> keys = {lr(), lr_schedule(), beta1(), beta2(), eps(), weight_decay()};
  keys.insert(keys.end(), more.begin(), more.end());
  return keys;
}
} // namespace train_keys

namespace {
// The order `ccsim train --help` lists the keys in: every optimizer's, then Adam's formula, the 1-bit methods',
// LAMB's, the sparsifiers', the sharded loop's and the pipeline loop's. Keys, not algorithms: which algorithm reads a
// key is its descriptor's to say. A key not named here (a new algorithm's own) follows them, in registry order.
const std::vector<std::string> HELP_ORDER = {
    "lr",    "lr_schedule", "beta1", "beta2",       "eps",  "weight_decay", "bias_correction", "adam_variant",
    "freeze_step", "momentum_mask", "compression_unit", "c_min", "c_max", "beta3", "r_min", "r_max", "r_threshold",
    "k",     "H",           "seed",  "gpus_per_node", "pp", "fw_bits",      "bw_bits",         "train_examples"};
} // namespace

const ParamSpec* find_train_param(const std::string& key)
{
  for (const auto* a : registered_algorithms())
    if (const auto* spec = a->train_param(key))
      return spec;
  return nullptr;
}

std::vector<ParamSpec> train_param_specs()
{
  std::vector<ParamSpec> specs;
  auto listed = [&](const std::string& key) {
    return std::any_of(specs.begin(), specs.end(), [&](const ParamSpec& s) { return s.key == key; });
  };
  for (const auto& key : HELP_ORDER)
    if (const auto* spec = find_train_param(key))
      specs.push_back(*spec);
  for (const auto* a : registered_algorithms())
    for (const auto& spec : a->train_params)
      if (!listed(spec.key))
        specs.push_back(spec);
  return specs;
}

double parse_train_param(const ParamSpec& spec, const std::string& text)
{
  if (spec.choices.empty())
    return io::parse_number(text, spec.range, "--param " + spec.key);
  const auto it = std::find(spec.choices.begin(), spec.choices.end(), text);
  if (it == spec.choices.end())
    throw io::InputError("--param " + spec.key, "",
                         fmt::format("{} is not one of: {}", io::echo(text), fmt::join(spec.choices, ", ")));
  return static_cast<double>(it - spec.choices.begin());
}

std::string train_param_values(const ParamSpec& spec)
{
  if (!spec.choices.empty())
    return fmt::format("{}", fmt::join(spec.choices, "|"));
  return fmt::format("[{:g}, {:g}]{}", spec.range.lo, spec.range.hi, spec.integer ? ", whole" : "");
}

bool train_param_applies(const ParamSpec& spec, const std::string& algorithm)
{
  const auto* a = find_algorithm(algorithm);
  return a != nullptr && a->train_param(spec.key) != nullptr;
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
  const AlgorithmDescriptor* algo = find_algorithm(algorithm);
  for (const auto& [key, value] : hyper) {
    const ParamSpec* spec = algo != nullptr ? algo->train_param(key) : nullptr;
    if (spec == nullptr) {
      std::string accepted;
      for (const auto& s : train_param_specs())
        if (algo != nullptr && algo->train_param(s.key) != nullptr)
          accepted += (accepted.empty() ? "" : ", ") + s.key;
      throw io::InputError("--param", "", fmt::format("{} is not a parameter of {} (accepted: {})", io::echo(key),
                                                      algorithm, accepted.empty() ? "none" : accepted));
    }
    io::check_range(value, spec->range, spec->integer, "--param " + key);
  }
  // A bound given against the other's default: the algorithm's own (its update's; see train_keys::c_max).
  auto at = [&](const char* key) {
    const auto it = hyper.find(key);
    return it != hyper.end() ? it->second : algo->train_param(key)->default_value;
  };
  auto reads = [&](const char* a, const char* b) {
    return algo != nullptr && algo->train_param(a) != nullptr && algo->train_param(b) != nullptr;
  };
  if (reads("c_min", "c_max") && at("c_min") > at("c_max"))
    throw io::InputError("--param c_min", "", fmt::format("must not exceed c_max ({} > {})", at("c_min"), at("c_max")));
  if (reads("r_min", "r_max") && at("r_min") > at("r_max"))
    throw io::InputError("--param r_min", "", fmt::format("must not exceed r_max ({} > {})", at("r_min"), at("r_max")));
  if (hyper.count("gpus_per_node") != 0 && workers % static_cast<int>(hyper.at("gpus_per_node")) != 0)
    throw io::InputError("--param gpus_per_node", "",
                         fmt::format("{} does not divide the {} workers", hyper.at("gpus_per_node"), workers));
}

} // namespace ccsim::algorithms
