// The registry of algorithm descriptors and the lookups every other part of ccsim goes through; see Registry.hpp.
#include "algorithms/Registry.hpp"

#include "algorithms/BuiltinAlgorithms.hpp"

#include "io/JsonInput.hpp"

#include <algorithm>
#include <deque>
#include <stdexcept>

namespace ccsim::algorithms {

namespace {
// A deque keeps every descriptor where it is while later ones are added, so pointers handed out stay valid.
std::deque<AlgorithmDescriptor>& storage()
{
  static std::deque<AlgorithmDescriptor> table;
  return table;
}

std::string names_of(const std::vector<const AlgorithmDescriptor*>& list)
{
  std::string names;
  for (const auto* a : list)
    names += (names.empty() ? "" : ", ") + a->name;
  return names.empty() ? "none" : names;
}

/// The checks of register_algorithm against the algorithms registered so far.
void check_descriptor(const AlgorithmDescriptor& d, const std::deque<AlgorithmDescriptor>& known)
{
  auto fail = [&](const std::string& problem) { throw std::logic_error("algorithm '" + d.name + "': " + problem); };
  if (d.name.empty())
    throw std::logic_error("an algorithm descriptor has no name");
  for (const auto& other : known)
    if (other.name == d.name)
      fail("registered twice");
  if (d.plan && d.plan->name() != d.name)
    fail("its plan calls itself '" + d.plan->name() + "'");
  if (d.plan && d.plan->parallelism() != d.parallelism)
    fail("its plan lays the model out differently from its descriptor");
  if (d.optimizer != nullptr && d.train_loop)
    fail("has both an optimizer and a training loop");
  // ZeRO stages 1-3 shard what a sharded plan shards; only its plans simulate them (algorithms/sharded/ShardedPlan).
  for (const int stage : d.zero_stages)
    if (stage < 0 || stage > 3 || (stage > 0 && d.parallelism != Parallelism::SHARDED_DATA_PARALLEL))
      fail("ZeRO stage " + std::to_string(stage) + " is not one its plan can run");
  if (d.context_parallel && d.parallelism == Parallelism::PIPELINE)
    fail("a pipeline plan does not run context parallelism");
  for (std::size_t i = 0; i < d.train_params.size(); ++i) {
    const ParamSpec& p = d.train_params[i];
    for (std::size_t j = 0; j < i; ++j)
      if (d.train_params[j].key == p.key)
        fail("declares train key '" + p.key + "' twice");
    // One declaration per key: what another algorithm's update reads under the same key must mean the same.
    for (const auto& other : known)
      if (const ParamSpec* q = other.train_param(p.key); q != nullptr && !same_declaration(p, *q))
        fail("declares train key '" + p.key + "' differently from '" + other.name + "'");
  }
  const bool baseline_known = d.baseline == d.name || std::any_of(known.begin(), known.end(), [&](const auto& o) {
                                return o.name == d.baseline;
                              });
  if (!baseline_known)
    fail("its baseline '" + d.baseline + "' is not registered before it");
  if (d.reference_for_parallelism)
    for (const auto& other : known)
      if (other.reference_for_parallelism && other.parallelism == d.parallelism)
        fail("'" + other.name + "' is already advise's reference for its parallelism");
}

/// The registry, the built-in algorithms in it from the first use on.
std::deque<AlgorithmDescriptor>& registry()
{
  static const bool filled = [] {
    for (auto& d : builtin_algorithms()) {
      check_descriptor(d, storage());
      storage().push_back(std::move(d));
    }
    return true;
  }();
  (void)filled;
  return storage();
}
} // namespace

bool same_declaration(const ParamSpec& a, const ParamSpec& b)
{
  return a.key == b.key && a.doc == b.doc && a.range.lo == b.range.lo && a.range.hi == b.range.hi &&
         a.range.lo_open == b.range.lo_open && a.integer == b.integer && a.choices == b.choices;
}

const ParamSpec* AlgorithmDescriptor::train_param(const std::string& key) const
{
  for (const auto& p : train_params)
    if (p.key == key)
      return &p;
  return nullptr;
}

std::vector<ParamSpec> AlgorithmDescriptor::simulate_params() const
{
  return plan ? plan->param_specs() : std::vector<ParamSpec>{};
}

void register_algorithm(AlgorithmDescriptor descriptor)
{
  auto& table = registry();
  check_descriptor(descriptor, table);
  table.push_back(std::move(descriptor));
}

std::vector<const AlgorithmDescriptor*> registered_algorithms()
{
  std::vector<const AlgorithmDescriptor*> out;
  for (const auto& d : registry())
    out.push_back(&d);
  return out;
}

const AlgorithmDescriptor* find_algorithm(const std::string& name)
{
  for (const auto& d : registry())
    if (d.name == name)
      return &d;
  return nullptr;
}

const AlgorithmDescriptor& algorithm_named(const std::string& name)
{
  if (const auto* d = find_algorithm(name))
    return *d;
  throw std::invalid_argument("unknown algorithm " + io::echo(name) + " (known: " + names_of(registered_algorithms()) +
                              ")");
}

const AlgorithmDescriptor& trainable_algorithm(const std::string& name)
{
  if (const auto* d = find_algorithm(name); d != nullptr && d->trains())
    return *d;
  std::vector<const AlgorithmDescriptor*> trainable;
  for (const auto* d : registered_algorithms())
    if (d->trains())
      trainable.push_back(d);
  throw std::invalid_argument("no numeric update for " + io::echo(name) + " (trainable: " + names_of(trainable) + ")");
}

const AlgorithmDescriptor& reference_algorithm(Parallelism parallelism)
{
  for (const auto& d : registry())
    if (d.reference_for_parallelism && d.parallelism == parallelism)
      return d;
  throw std::logic_error("no algorithm is advise's reference for a parallelism");
}

std::vector<AlgorithmInfo> update_algorithm_infos()
{
  std::vector<AlgorithmInfo> infos;
  for (const auto& d : registry())
    if (d.trains())
      infos.push_back({d.name, d.description, d.simulates(), true});
  return infos;
}

std::vector<AlgorithmInfo> list_algorithms()
{
  std::vector<AlgorithmInfo> out;
  for (const auto& d : registry())
    out.push_back({d.name, d.description, d.simulates(), d.trains()});
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

// --- the simulation half (declared in PlanAlgorithm.hpp)

double check_param(const ParamSpec& spec, double value)
{
  return io::check_range(value, spec.range, spec.integer, "--param " + spec.key);
}

ParamValues default_params(const PlanAlgorithm& algorithm)
{
  ParamValues p;
  for (const auto& spec : algorithm.param_specs())
    p[spec.key] = spec.default_value;
  return p;
}

const PlanAlgorithm* find_plan_algorithm(const std::string& name)
{
  const auto* d = find_algorithm(name);
  return d != nullptr ? d->plan.get() : nullptr;
}

std::vector<const PlanAlgorithm*> plan_algorithms()
{
  std::vector<const PlanAlgorithm*> out;
  for (const auto& d : registry())
    if (d.plan)
      out.push_back(d.plan.get());
  std::sort(out.begin(), out.end(), [](const auto* a, const auto* b) { return a->name() < b->name(); });
  return out;
}

} // namespace ccsim::algorithms
