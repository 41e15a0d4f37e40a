// `experiment`'s option table and builder (ExperimentCommand.hpp).
#include "api/options/ExperimentCommand.hpp"

#include "api/options/CommonOptions.hpp"
#include "api/process/Spawn.hpp"

#include "io/JsonInput.hpp"

namespace ccsim::api {

namespace {
/// The experiment FILE names: a preset or a path, or (Python) a document.
void load(ExperimentCommand& c, const GivenValue& value, const Option&)
{
  if (!value.document) {
    c.experiment = load_experiment(io::resolve_preset("experiments", value.text(), "ccsim experiment"));
    return;
  }
  nlohmann::json doc = *value.document;
  if (doc.is_object() && !doc.contains("name"))
    doc["name"] = "experiment";
  c.experiment = experiment_from_json(doc, value.text());
}
} // namespace

const OptionTable<ExperimentCommand>& experiment_options()
{
  static const OptionTable<ExperimentCommand> table = [] {
    using C    = ExperimentCommand;
    using O    = ExperimentOptions;
    auto lines = terminal_lines<C>();
    append(lines, {
        {source_option("file", "experiment JSON (a path or a name in experiments/)").needed().first_argument()
             .in_python("spec"),
         load},
        {path_option("out", "output folder (default results/<experiment name>)"),
         [](C& c, const GivenValue& v, const Option&) { c.options.out = v.text(); }},
        {integer_option("jobs", io::range::kJobs, "simulations run at once (one process each)").defaults("1"),
         into(&C::options, &O::jobs)},
        {flag_option("keep-going", "run every point even when one fails (the run still exits 1 and lists the failures)"),
         into(&C::options, &O::keep_going)},
        {flag_option("resume", "reuse the checked results in DIR/results.jsonl of points with the same configuration "
                               "hash; run the rest"),
         into(&C::options, &O::resume)},
        {flag_option("fresh", "remove DIR's earlier results first (otherwise they stay until this run completes)"),
         into(&C::options, &O::fresh)},
        {flag_option("no-plot", "do not draw the figure"), [](C& c, const GivenValue&, const Option&) { c.plot = false; }},
        {flag_option("allow-oom", "run points that do not fit the GPUs' memory too (marked in the results and the "
                                  "figure)"),
         [](C& c, const GivenValue&, const Option&) {
           for (auto& point : c.experiment.points)
             point.request.allow_oom = true;
         }},
    });
    append(lines, long_run_lines<C>(kTimeLimitHelp));
    return OptionTable<C>("experiment", "FILE.json [options]", "experiment", std::move(lines));
  }();
  return table;
}

ExperimentCommand build_experiment(const GivenValues& given)
{
  ExperimentCommand c = experiment_options().fill(given);
  if (!given.has("out"))
    c.options.out = std::filesystem::path("results") / c.experiment.name;
  if (c.options.resume && c.options.fresh)
    throw io::InputError("--fresh", "", "removes the results --resume would reuse: give one of them");
  return c;
}

PlotRun draw_experiment_figure(const ExperimentCommand& c)
{
  if (!c.plot || c.experiment.figure.value("kind", "none") == "none")
    return {};
  return run_plot_script("plot_experiment.py", (c.options.out / "results.json").string());
}

} // namespace ccsim::api
