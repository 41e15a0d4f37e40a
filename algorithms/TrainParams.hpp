#pragma once
// The `ccsim train --param` keys: for each, the algorithms that read it, the values it may take and what it means.
// One table serves the help text, the per-algorithm acceptance and the range checks, so no training loop sees a
// NaN learning rate, a zero divisor (H, gpus_per_node) or a negative step count.

#include "numerics/Optimizers.hpp"
#include "io/Limits.hpp"

#include <string>
#include <vector>

namespace ccsim::algorithms {

struct TrainParamSpec {
  std::string key;
  std::string doc;
  io::Range range;
  bool integer = false;
  std::vector<std::string> algorithms; // the algorithms whose update reads this key
  /// A word parameter (adam_variant=torch): the words it takes. numerics::Hyper holds numbers, so the value travels
  /// as the word's index, and `range` is [0, choices.size() - 1], whole.
  std::vector<std::string> choices = {};
};

/// Every train parameter, in help order.
const std::vector<TrainParamSpec>& train_param_specs();

/// The spec of `key`, or nullptr when no algorithm reads it.
const TrainParamSpec* find_train_param(const std::string& key);

/// The value of `--param key=text`: one of spec.choices (as its index) for a word parameter, else a number in
/// spec.range. Anything else throws io::InputError("--param <key>", "", ...).
double parse_train_param(const TrainParamSpec& spec, const std::string& text);

/// The range or the words `key` takes, for the help text: "[0, 10]", "[1, 1e+09], whole", "apex|torch|adamw".
std::string train_param_values(const TrainParamSpec& spec);

/// Whether `algorithm`'s update reads `key`.
bool train_param_applies(const TrainParamSpec& spec, const std::string& algorithm);

/// The keys of `hyper` that `algorithm` reads: one parameter set can serve a comparison (the baseline shares eps
/// and lr with the compressed run; a freeze_step applies to 1-bit Adam only). Unknown keys are kept, so
/// check_train_params still reports them.
numerics::Hyper hyper_for(const std::string& algorithm, const numerics::Hyper& hyper);

/// Checks `hyper` for `algorithm` with `workers` workers: every key is read by the algorithm, every value is in
/// its range, and the keys that constrain each other agree (c_min <= c_max, r_min <= r_max, gpus_per_node divides
/// the workers). Violations throw io::InputError("--param <key>", "", ...).
void check_train_params(const std::string& algorithm, const numerics::Hyper& hyper, int workers);

} // namespace ccsim::algorithms
