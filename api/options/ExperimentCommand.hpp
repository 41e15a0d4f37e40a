#pragma once
// `experiment`'s options: the table both front ends generate their arguments from, and the builder that loads the
// experiment and reads the run's options (api/experiment/ExperimentRun.hpp).

#include "api/experiment/ExperimentRun.hpp"
#include "api/options/OptionTable.hpp"
#include "api/process/Spawn.hpp"

#include <string>

namespace ccsim::api {

struct ExperimentCommand {
  Experiment experiment;     // loaded and expanded; with --allow-oom every point may exceed the GPUs' memory
  ExperimentOptions options; // out (default results/<name>), jobs, keep_going, resume, fresh
  bool plot = true;          // draw the experiment's figure (no --no-plot)
};

const OptionTable<ExperimentCommand>& experiment_options();

/// The experiment loaded (a preset name, a path, or a document: one without "name" is named "experiment", since its
/// label is no folder name) and the run's options read and checked.
ExperimentCommand build_experiment(const GivenValues& given);

/// Draws the experiment's figure from OUT/results.json (plots/plot_experiment.py) unless --no-plot or the experiment
/// has none. How it went (no matplotlib: a warning; a failed script: an error, exit 5) the caller says.
PlotRun draw_experiment_figure(const ExperimentCommand& command);

} // namespace ccsim::api
