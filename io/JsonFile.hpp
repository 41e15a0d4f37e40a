#pragma once
// Reading the JSON files ccsim takes (topologies, workloads, experiments, fits) within limits::kMaxFileBytes and
// limits::kMaxJsonDepth: every failure is an InputError naming the file.

#include <nlohmann/json.hpp>

#include <string>

namespace ccsim::io {

/// Reads and parses a JSON file. Anything but a regular file (a FIFO, /dev/zero, a folder), a file over
/// limits::kMaxFileBytes, nesting deeper than limits::kMaxJsonDepth, a key given twice in one object, and invalid,
/// truncated or non-UTF-8 JSON throw InputError.
nlohmann::json read_json_file(const std::string& path);
/// The bytes of an input file after the same checks (a regular file of at most limits::kMaxFileBytes); `kind`
/// names what was expected in the message for a directory ("JSON file").
std::string read_input_file(const std::string& path, const std::string& kind);
/// The same checks on text already in memory (`where` names it in errors).
nlohmann::json parse_json_text(const std::string& text, const std::string& where);

} // namespace ccsim::io
