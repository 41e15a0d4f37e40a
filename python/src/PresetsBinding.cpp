// What ccsim knows: its presets and algorithms (what `ccsim list` shows, as structured records), where the presets
// live, and InputError's one-line message for errors the package finds itself (a dict that is not JSON).
#include "Bindings.hpp"

#include "algorithms/PlanAlgorithm.hpp"
#include "algorithms/Registry.hpp"
#include "algorithms/TrainParams.hpp"
#include "io/JsonInput.hpp"

#include <nanobind/stl/string.h>

namespace ccsim::python {

namespace {
/// Every algorithm, from its descriptor: name, description, whether it simulates and trains, simulate's --param keys
/// (with defaults), train's (with their words, for a word parameter), and the baseline it is compared against.
std::string algorithms_json()
{
  nlohmann::json out = nlohmann::json::array();
  for (const auto& a : algorithms::list_algorithms()) {
    const auto& descriptor = algorithms::algorithm_named(a.name);
    nlohmann::json params  = nlohmann::json::array();
    for (const auto& p : descriptor.simulate_params())
      params.push_back({{"key", p.key},
                        {"default", p.default_value},
                        {"min", p.range.lo},
                        {"max", p.range.hi},
                        {"integer", p.integer},
                        {"doc", p.doc}});
    nlohmann::json train_params = nlohmann::json::array();
    for (const auto& p : algorithms::train_param_specs()) // help order
      if (descriptor.train_param(p.key) != nullptr)
        train_params.push_back({{"key", p.key},
                                {"min", p.range.lo},
                                {"max", p.range.hi},
                                {"integer", p.integer},
                                {"choices", p.choices},
                                {"doc", p.doc}});
    out.push_back({{"name", a.name},
                   {"description", a.description},
                   {"simulates", a.simulates},
                   {"trains", a.trains},
                   {"params", params},
                   {"train_params", train_params},
                   {"baseline", descriptor.baseline}});
  }
  return io::dump_json(out);
}

std::string presets_json(const std::string& kind)
{
  if (kind != "topologies" && kind != "workloads" && kind != "experiments")
    throw io::InputError("ccsim list", "", io::echo(kind) + " is not one of: topologies, workloads, experiments");
  nlohmann::json out = nlohmann::json::array();
  for (const auto& p : io::list_presets(kind))
    out.push_back({{"name", p.name}, {"description", p.description}, {"path", p.path}});
  return io::dump_json(out);
}
} // namespace

void bind_presets(nb::module_& m)
{
  m.def("algorithms", &algorithms_json, "Every algorithm ccsim knows, as JSON text.");
  m.def("presets", &presets_json, nb::arg("kind"), "The presets of topologies | workloads | experiments, as JSON text.");
  m.def("data_dir", &io::data_dir, "The folder holding topologies/, workloads/, experiments/ and plots/.");
  m.def(
      "input_error_message",
      [](const std::string& where, const std::string& pointer, const std::string& problem) {
        return std::string(io::InputError(where, pointer, problem).what());
      },
      nb::arg("where"), nb::arg("pointer"), nb::arg("problem"), "InputError's one-line message.");
}

} // namespace ccsim::python
