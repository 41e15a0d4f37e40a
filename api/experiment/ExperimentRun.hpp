#pragma once
// `ccsim experiment` as a library call: check every point (api/experiment/PointChecks.hpp), lock the output folder
// (api/output/FolderLock.hpp), run every point (api/experiment/ExperimentRunner.hpp) with its results log (each
// point's line written the moment it finishes, api/experiment/ResultLog.hpp), reuse the log's checked results of
// unchanged configurations under --resume, then assemble the rows and write DIR/results.json and DIR/results.csv.
// Printing and plotting are the caller's.
//
// The results of an earlier run in DIR stay readable until this run completes: new lines are appended to the log,
// and results.json, results.csv and the log (then one line per point, in point order) are each replaced whole
// (temporary file and rename) at the end. A stopped run never replaces a complete results.json with its partial one.
// `fresh` removes the earlier results first instead.

#include "api/experiment/Experiment.hpp"
#include "api/experiment/ExperimentRows.hpp"

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace ccsim::api {

struct ExperimentOptions {
  std::filesystem::path out; // the output folder (created)
  int jobs        = 1;
  bool keep_going = false; // run every point even when one fails
  bool resume     = false; // reuse DIR/results.jsonl's results of points with the same configuration hash
  bool fresh      = false; // remove DIR's earlier results (log, results.json, results.csv) before the run
  /// How far the run is (api/experiment/ExperimentRunner.hpp's RunnerOptions::on_progress).
  std::function<void(std::size_t finished, std::size_t total, std::size_t resumed, std::size_t running,
                     std::size_t failed)>
      on_progress;
  /// One line for the user before the run starts ("resuming: 12 of 35 points found in ...; 2 re-run (...)").
  std::function<void(const std::string& line)> on_note;
};

struct ExperimentOutcome {
  bool rank0 = true;                // under mpirun, only rank 0 assembles and writes; the others stop here
  std::vector<PointResult> results; // in point order
  std::size_t failed = 0, input_failures = 0;
  bool stopped  = false; // a signal or the time limit ended it early
  bool gathered = true;  // under mpirun: rank 0 holds every rank's results
  /// Whether results.json / results.csv were written: a complete run, or the finished points of a stopped one
  /// (complete: false). A run that stopped at its first failed point (without keep_going) writes none.
  bool written = false;
  /// A stopped run that left an earlier run's complete results.json / results.csv in place (rows and document are
  /// still this run's finished points, for printing).
  bool kept_previous = false;
  Experiment shown;                  // the experiment whose rows are `rows`: every point, or a stopped run's finished ones
  std::vector<ExperimentRow> rows;   // the rows written
  nlohmann::json document;           // results.json's document
  std::size_t done = 0;              // points that ran without error
  std::string log_name;              // DIR/results.jsonl, printable
};

/// Runs the experiment (see above). A point that cannot run (a bad topology, algorithm, parameter or shape) is an
/// io::InputError naming it before anything runs or is written; with keep_going it is a failed row instead and the
/// others run. A folder another run holds is an io::InputError naming its pid.
ExperimentOutcome run_experiment(const Experiment& e, const ExperimentOptions& options);

} // namespace ccsim::api
