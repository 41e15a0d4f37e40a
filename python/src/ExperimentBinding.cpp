// ccsim._core.experiment: `ccsim experiment SPEC --out DIR` as a call (api/experiment/ExperimentRun.hpp): every point
// through the process pool, DIR/results.json, results.csv and results.jsonl written, and the rows answered. Also the
// experiment loader, for a preset name, a path or a dict.
#include "Bindings.hpp"
#include "Callback.hpp"
#include "Flags.hpp"

#include "api/experiment/ExperimentRun.hpp"
#include "api/experiment/ExperimentRunner.hpp"
#include "io/JsonInput.hpp"

#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

namespace ccsim::python {

namespace {
/// The experiment a preset name, a path or a dict's JSON names. A dict without "name" is named "experiment": its
/// label ("<experiment dict>") is not a folder name, and a name must be one (api/experiment/Experiment.cpp).
api::Experiment experiment_source(const std::string& name, const std::optional<std::string>& json_text)
{
  if (!json_text)
    return api::load_experiment(io::resolve_preset("experiments", name, "ccsim experiment"));
  auto doc = io::parse_json_text(*json_text, name);
  if (doc.is_object() && !doc.contains("name"))
    doc["name"] = "experiment";
  return api::experiment_from_json(doc, name);
}

std::string load_experiment(const std::string& name, const std::optional<std::string>& json_text)
{
  nb::gil_scoped_release release;
  const auto e = experiment_source(name, json_text);
  nlohmann::json points = nlohmann::json::array();
  for (std::size_t i = 0; i < e.points.size(); ++i)
    points.push_back({{"axes", e.points[i].axes}, {"label", e.points[i].label}, {"paper", e.points[i].paper}});
  return io::dump_json({{"name", e.name},
                        {"description", e.description},
                        {"source", e.source},
                        {"path", e.path},
                        {"baseline", e.baseline_algorithm},
                        {"figure", e.figure},
                        {"points", points}});
}

std::string experiment(const std::string& name, const std::optional<std::string>& json_text, const std::string& out,
                       const std::map<std::string, std::string>& flags, bool keep_going, bool resume,
                       nb::object progress)
{
  Callback on_progress(std::move(progress));
  nlohmann::json answer;
  {
    nb::gil_scoped_release release;
    const auto e = experiment_source(name, json_text);
    api::ExperimentOptions options;
    options.out        = out;
    options.jobs       = static_cast<int>(Flags(flags).integer("jobs", io::range::kJobs).value_or(1));
    options.keep_going = keep_going;
    options.resume     = resume;
    if (!on_progress.empty())
      options.on_progress = [&](std::size_t finished, std::size_t total, std::size_t resumed, std::size_t running,
                                std::size_t failed) {
        on_progress.call_or_keep(finished, total, resumed, running, failed);
      };
    const auto o = api::run_experiment(e, options);
    // Failed points, one line each as `ccsim experiment` prints them (without its "ccsim experiment: " prefix).
    nlohmann::json failures = nlohmann::json::array();
    for (std::size_t i = 0; i < o.results.size(); ++i)
      if (o.results[i].failed())
        failures.push_back({{"point", i},
                            {"kind", o.results[i].error_kind},
                            {"line", io::printable(e.path, 200) + ": " + api::describe_point(e, i) + ": " +
                                         io::printable(o.results[i].error, 400)}});
    answer = {{"name", e.name},
              {"written", o.written},
              {"stopped", o.stopped},
              {"failures", failures},
              {"rows", api::to_json(o.rows)},
              {"document", o.written ? o.document : nlohmann::json(nullptr)}};
  }
  on_progress.rethrow_kept();
  return io::dump_json(answer);
}
} // namespace

void bind_experiment(nb::module_& m)
{
  m.def("load_experiment", &load_experiment, nb::arg("name"), nb::arg("json_text").none(),
        "An experiment's expanded points, checked by its loader, as JSON text.");
  m.def("experiment", &experiment, nb::arg("name"), nb::arg("json_text").none(), nb::arg("out"), nb::arg("flags"),
        nb::arg("keep_going"), nb::arg("resume"), nb::arg("progress").none(),
        "Runs every point; results.json etc. written into `out`; the rows and failures as JSON text.");
}

} // namespace ccsim::python
