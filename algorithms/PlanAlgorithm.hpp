#pragma once
// The simulation half of an algorithm unit: given the shape of one training step, say what is
// communicated and computed after the backward pass, per phase (sim/model/CommPlan.hpp).

#include "sim/model/CommPlan.hpp"
#include "io/Limits.hpp"

#include <map>
#include <string>
#include <vector>

namespace ccsim::algorithms {

/// One accepted --param key with its default and the values it may take. Every value is checked against `range`
/// (finite, inside it, whole when `integer`) before plan() or a training loop sees it, so none divides by zero or reads
/// NaN. One type for both commands: a key that `ccsim simulate` and `ccsim train` both take (SLAMB's k and H) is one
/// declaration, which the plan's param_specs() and the algorithm's descriptor (AlgorithmDescriptor::train_params) both
/// return.
struct ParamSpec {
  std::string key;
  /// simulate: the value plan() gets when --param does not set it. train: the value the update uses then, where
  /// ccsim's own checks need it (LAMB's clips, SLAMB's k and H); 0 where only the update knows it (numerics/).
  double default_value;
  std::string doc;
  io::Range range;
  bool integer = false;
  /// A word parameter of `ccsim train` (adam_variant=torch): the words it takes. numerics::Hyper holds numbers, so
  /// the value travels as the word's index, and `range` is [0, choices.size() - 1], whole.
  std::vector<std::string> choices = {};
};

/// Whether two declarations of one key say the same: doc, range, wholeness and words (defaults may differ per
/// algorithm: LAMB clips its trust ratio at 0.3, SLAMB at 1000).
bool same_declaration(const ParamSpec& a, const ParamSpec& b);

/// `value` checked against `spec`; a violation is io::InputError("--param <key>", "", "must be ...").
double check_param(const ParamSpec& spec, double value);

/// --param values after defaults are applied (unknown keys are rejected before plan() is called).
using ParamValues = std::map<std::string, double>;

/// How the algorithm lays the model out on the GPUs; the step engine builds groups accordingly.
enum class Parallelism {
  DATA_PARALLEL, // every GPU holds the whole model (or its tp/pp slice) and a full optimizer state
  SHARDED_DATA_PARALLEL, // ZeRO/Megatron distributed optimizer: state and update sharded over dp
  PIPELINE,      // GPipe over pp stages (AQ-SGD and its baselines)
};

/// What the step engine simulates of an algorithm. Its name, description and everything else ccsim knows of it are
/// in its descriptor (algorithms/AlgorithmDescriptor.hpp), which holds the plan.
class PlanAlgorithm {
public:
  virtual ~PlanAlgorithm() = default;
  virtual std::string name() const = 0;
  virtual Parallelism parallelism() const { return Parallelism::DATA_PARALLEL; }
  virtual std::vector<ParamSpec> param_specs() const { return {}; }
  virtual sim::StepPlan plan(const sim::StepShape& shape, const ParamValues& params) const = 0;
};

/// A plan that carries its algorithm's name (the optimizer measurement it looks up is named after it).
class NamedPlan : public PlanAlgorithm {
public:
  explicit NamedPlan(std::string name) : name_(std::move(name)) {}
  std::string name() const override { return name_; }

protected:
  std::string name_;
};

/// Every accepted --param key at its default value.
ParamValues default_params(const PlanAlgorithm& algorithm);

/// The plan of the registered algorithm `name` (algorithms/Registry.hpp); nullptr when no algorithm has that name or
/// it has no plan (sgd trains only).
const PlanAlgorithm* find_plan_algorithm(const std::string& name);
/// Every registered plan, sorted by name.
std::vector<const PlanAlgorithm*> plan_algorithms();

} // namespace ccsim::algorithms
