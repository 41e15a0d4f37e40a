#pragma once
// The end of every calibration: the topology's JSON with the fitted constants and a note saying where they came from,
// written to the file the user named, then loaded back as every topology is (a fit must never produce a file ccsim
// would refuse).

#include <nlohmann/json.hpp>

#include <string>

namespace ccsim::api {

/// Writes `doc` to `out` (io::InputError("--out", ...) when it cannot) and loads it as a topology (its errors, if the
/// fitted values broke a rule, name the file).
void write_calibrated_topology(const nlohmann::json& doc, const std::string& out);

} // namespace ccsim::api
