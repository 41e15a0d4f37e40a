#pragma once
// The presets ccsim ships (topologies/, workloads/, experiments/ under the data folder) and how a name on the
// command line resolves to one of them or to a file.

#include <string>
#include <vector>

namespace ccsim::io {

/// The folder holding topologies/, workloads/, experiments/ and plots/: $CCSIM_DATA_DIR, else the source tree.
std::string data_dir();

/// Whether `name_or_path` is a path to a JSON file rather than a preset name: it holds a '/' or ends in ".json".
bool looks_like_path(const std::string& name_or_path);

/// A preset name ("v100x4-eth40g") or a path to a JSON file ("./my.json", "a/b.json").
/// Presets resolve to DATA_DIR/<kind>/<name>.json; an unknown name throws InputError listing the known ones,
/// with `option` ("--topology") as the place; a missing file's error says a relative path was resolved against the
/// working directory.
std::string resolve_preset(const std::string& kind, const std::string& name_or_path, const std::string& option);

struct PresetInfo {
  std::string name;
  std::string description; // the file's "description" field
  std::string path;
};
/// Every *.json in DATA_DIR/<kind>, sorted by name.
std::vector<PresetInfo> list_presets(const std::string& kind);

} // namespace ccsim::io
