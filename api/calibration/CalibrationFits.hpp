#pragma once
// The fits behind the presets' calibrated constants (experiments/calibration/fits.json): which constants of which
// topology were fitted on which calibration tables. `ccsim validate` refits them with rows left out.

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ccsim::api {

struct CalibrationFit {
  std::string topology;               // preset name or path
  std::vector<std::string> constants; // JSON pointers into the topology file, each a positive number there
  std::vector<std::string> tables;    // experiment names or paths; their rows on `topology` fit the constants
  std::string source;
  /// Every point of the tables runs on `topology`, whatever topology it names (calibrate --steps: the rows were
  /// measured on the cluster being calibrated). Otherwise only the points naming `topology` take part.
  bool every_point = false;
};

/// Why `pointer` cannot be fitted in the topology JSON `topo` (read from topo_path): not a JSON pointer, not a
/// positive number there, or not a physical constant (its key, or its object's, names no unit: gpus_per_node). Empty
/// when it can. calibrate --steps and the fits file of validate both ask it.
std::string constant_problem(const nlohmann::json& topo, const std::string& topo_path, const std::string& pointer);

/// The default fits file: <data dir>/experiments/calibration/fits.json.
std::string default_fits_path();

/// Reads and checks a fits file (each pointer must name a positive number in its topology file, each table must
/// load); errors are io::InputError "FILE: /json/path: problem".
std::vector<CalibrationFit> load_calibration_fits(const std::string& path);

} // namespace ccsim::api
