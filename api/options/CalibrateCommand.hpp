#pragma once
// `calibrate`'s options: the table both front ends generate their arguments from, and the builder that reads what was
// given into one of its two fits: collective constants from nccl-tests logs (api/calibration/CalibrateNccl.hpp) or any
// constants from step times (api/calibration/CalibrateSteps.hpp).

#include "api/calibration/CalibrateNccl.hpp"
#include "api/options/OptionTable.hpp"

#include <optional>
#include <string>
#include <vector>

namespace ccsim::api {

struct CalibrateCommand {
  std::string topology;                // as given: a preset name or a path
  std::string topology_path;           // the file it names (checked by its loader)
  std::vector<std::string> nccl_tests; // --nccl-tests FILE..., or
  std::optional<std::string> steps;    // --steps FILE (or an experiment's name), resolved to its path
  std::vector<std::string> fit;        // --steps: the constants (JSON pointers) fitted
  int jobs = 2;
  std::string out;                     // where the calibrated topology goes
  std::optional<std::string> op, algo, proto, tuner_table;
  std::optional<int> ranks;
  std::string fidelity = "fast";
  bool no_fit          = false;        // --no-fit: replay --nccl-tests on the topology as it is, write nothing

  /// The --nccl-tests fit's request.
  NcclCalibrationRequest nccl_request() const;
};

const OptionTable<CalibrateCommand>& calibrate_options();

/// The given values read and checked: the topology loaded (its own errors first), exactly one of --nccl-tests and
/// --steps, each option only with the fit that reads it, and --out exactly when something is fitted (not with --no-fit).
CalibrateCommand build_calibrate(const GivenValues& given);

} // namespace ccsim::api
