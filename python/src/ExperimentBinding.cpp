// ccsim._core.experiment: `ccsim experiment SPEC --out DIR` as a call (api/experiment/ExperimentRun.hpp): every point
// through the process pool, DIR/results.json, results.csv and results.jsonl written, the figure drawn, and the rows
// answered. Also the experiment loader, for a preset name, a path or a dict. Both go through experiment's own builder
// (api/options/ExperimentCommand.hpp).
#include "Bindings.hpp"
#include "Callback.hpp"
#include "Given.hpp"

#include "api/experiment/ExperimentRunner.hpp"
#include "api/options/ExperimentCommand.hpp"
#include "io/JsonInput.hpp"

#include <nanobind/stl/map.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace ccsim::python {

namespace {
std::string load_experiment(const Texts& texts, const Documents& documents)
{
  nb::gil_scoped_release release;
  const auto& options = api::experiment_options().options();
  return python_errors(options, [&] {
    const auto e = api::build_experiment(given_values(options, texts, documents)).experiment;
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
  });
}

std::string experiment(const Texts& texts, const Documents& documents, nb::object progress)
{
  Callback on_progress(std::move(progress));
  nlohmann::json answer;
  {
    nb::gil_scoped_release release;
    const auto& options = api::experiment_options().options();
    answer = python_errors(options, [&] {
      api::ExperimentCommand command = api::build_experiment(given_values(options, texts, documents));
      const api::Experiment& e       = command.experiment;
      if (!on_progress.empty())
        command.options.on_progress = [&](std::size_t finished, std::size_t total, std::size_t resumed,
                                          std::size_t running, std::size_t failed) {
          on_progress.call_or_keep(finished, total, resumed, running, failed);
        };
      const auto o = api::run_experiment(e, command.options);
      // Failed points, one line each as `ccsim experiment` prints them (without its "ccsim experiment: " prefix).
      nlohmann::json failures = nlohmann::json::array();
      for (std::size_t i = 0; i < o.results.size(); ++i)
        if (o.results[i].failed())
          failures.push_back({{"point", i},
                              {"kind", o.results[i].error_kind},
                              {"line", io::printable(e.path, 200) + ": " + api::describe_point(e, i) + ": " +
                                           io::printable(o.results[i].error, 400)}});
      // The figure, as the command line draws it: after a run that wrote its results and did not stop at a failure.
      const bool complete = o.written && !o.stopped && (o.failed == 0 || command.options.keep_going);
      const api::PlotRun plot = complete ? api::draw_experiment_figure(command) : api::PlotRun{};
      return nlohmann::json{{"name", e.name},
                            {"written", o.written},
                            {"stopped", o.stopped},
                            {"failures", failures},
                            {"rows", api::to_json(o.rows)},
                            {"figure_drawn", plot.status == api::PlotRun::Status::DRAWN},
                            // A script that failed on the results says why (its last line); no matplotlib: "".
                            {"figure_error", plot.status == api::PlotRun::Status::FAILED ? plot.message : ""},
                            {"document", o.written ? o.document : nlohmann::json(nullptr)}};
    });
  }
  on_progress.rethrow_kept();
  return io::dump_json(answer);
}
} // namespace

void bind_experiment(nb::module_& m)
{
  m.def("load_experiment", &load_experiment, nb::arg("texts"), nb::arg("documents"),
        "An experiment's expanded points, checked by its loader, as JSON text.");
  m.def("experiment", &experiment, nb::arg("texts"), nb::arg("documents"), nb::arg("progress").none(),
        "Runs every point; results.json etc. written into `out`, the figure drawn; the rows and failures as JSON text.");
}

} // namespace ccsim::python
