#pragma once
// The `ccsim train --param` keys. Each algorithm's descriptor lists the keys its update reads
// (AlgorithmDescriptor::train_params); the keys several families read are declared once here, a family's own beside
// its plan. From them come the help text, the per-algorithm acceptance and the range checks, so no training loop sees
// a NaN learning rate, a zero divisor (H, gpus_per_node) or a negative step count.

#include "algorithms/PlanAlgorithm.hpp"

#include "numerics/Optimizers.hpp"

#include <string>
#include <vector>

namespace ccsim::algorithms {

/// The declarations shared across families. Ranges are what the update rules are defined for (a decay rate in
/// [0, 1), a step count >= 1, bits the int8 codes can hold), not tuning advice.
namespace train_keys {
ParamSpec lr();
ParamSpec lr_schedule();
ParamSpec beta1();
ParamSpec beta2();
ParamSpec eps();
ParamSpec weight_decay();
ParamSpec bias_correction();
ParamSpec adam_variant();
/// LAMB's trust-ratio clips; `update_default`: where the update clips when not given (LAMB 0.3, SLAMB 1000).
ParamSpec c_min();
ParamSpec c_max(double update_default);
ParamSpec beta3();
/// What every data-parallel Adam or LAMB update reads: lr, lr_schedule, beta1, beta2, eps, weight_decay; then `more`.
std::vector<ParamSpec> data_parallel(std::vector<ParamSpec> more);
} // namespace train_keys

/// Every train parameter a registered algorithm reads, in help order: the keys of the table in TrainParams.cpp in
/// its order, then any other key in registry order (a new algorithm's own).
std::vector<ParamSpec> train_param_specs();

/// The declaration of `key` (the first registered algorithm's that reads it), or nullptr when none reads it.
const ParamSpec* find_train_param(const std::string& key);

/// The value of `--param key=text`: one of spec.choices (as its index) for a word parameter, else a number in
/// spec.range. Anything else throws io::InputError("--param <key>", "", ...).
double parse_train_param(const ParamSpec& spec, const std::string& text);

/// The range or the words `key` takes, for the help text: "[0, 10]", "[1, 1e+09], whole", "apex|torch|adamw".
std::string train_param_values(const ParamSpec& spec);

/// Whether `algorithm`'s update reads `key` (false for a name no algorithm has).
bool train_param_applies(const ParamSpec& spec, const std::string& algorithm);

/// The keys of `hyper` that `algorithm` reads: one parameter set can serve a comparison (the baseline shares eps
/// and lr with the compressed run; a freeze_step applies to 1-bit Adam only). Unknown keys are kept, so
/// check_train_params still reports them.
numerics::Hyper hyper_for(const std::string& algorithm, const numerics::Hyper& hyper);

/// Checks `hyper` for `algorithm` with `workers` workers: every key is read by the algorithm, every value is in
/// its range, and the keys that constrain each other agree (c_min <= c_max, r_min <= r_max, gpus_per_node divides
/// the workers). Violations throw io::InputError("--param <key>", "", ...).
void check_train_params(const std::string& algorithm, const numerics::Hyper& hyper, int workers);

} // namespace ccsim::algorithms
