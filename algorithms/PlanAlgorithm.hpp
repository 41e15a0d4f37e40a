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
/// (finite, inside it, whole when `integer`) before plan() sees it, so no plan divides by zero or reads NaN.
struct ParamSpec {
  std::string key;
  double default_value;
  std::string doc;
  io::Range range;
  bool integer = false;
};

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

class PlanAlgorithm {
public:
  virtual ~PlanAlgorithm() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  virtual Parallelism parallelism() const { return Parallelism::DATA_PARALLEL; }
  virtual std::vector<ParamSpec> param_specs() const { return {}; }
  virtual sim::StepPlan plan(const sim::StepShape& shape, const ParamValues& params) const = 0;
};

/// Every accepted --param key at its default value.
ParamValues default_params(const PlanAlgorithm& algorithm);

/// nullptr when no algorithm has that name.
const PlanAlgorithm* find_plan_algorithm(const std::string& name);
/// Every registered plan, sorted by name.
std::vector<const PlanAlgorithm*> plan_algorithms();

} // namespace ccsim::algorithms
