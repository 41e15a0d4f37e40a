// Presets: the JSON files shipped under topologies/, workloads/ and experiments/, named without their folder or
// extension. Anything that looks like a path is taken as one, so a local file never shadows a preset by accident.
#include "io/Presets.hpp"

#include "io/InputError.hpp"
#include "io/JsonFile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace ccsim::io {

namespace fs = std::filesystem;

std::string data_dir()
{
  if (const char* env = std::getenv("CCSIM_DATA_DIR"); env != nullptr && *env != '\0')
    return env;
  return CCSIM_SOURCE_DIR;
}

std::vector<PresetInfo> list_presets(const std::string& kind)
{
  std::vector<PresetInfo> out;
  const fs::path dir = fs::path(data_dir()) / kind;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".json")
      continue;
    PresetInfo info{entry.path().stem().string(), "", entry.path().string()};
    try {
      const auto j = read_json_file(info.path);
      if (j.is_object() && j.contains("description") && j["description"].is_string())
        info.description = j["description"].get<std::string>();
    } catch (const InputError&) {
      info.description = "(unreadable)";
    }
    out.push_back(std::move(info));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

bool looks_like_path(const std::string& name_or_path)
{
  return name_or_path.find('/') != std::string::npos || (name_or_path.size() > 5 && name_or_path.ends_with(".json"));
}

std::string resolve_preset(const std::string& kind, const std::string& name_or_path, const std::string& option)
{
  std::error_code ec; // the non-throwing overloads: a 4 KB name is ENAMETOOLONG, not an exception
  if (looks_like_path(name_or_path)) {
    if (!fs::exists(name_or_path, ec))
      throw InputError(name_or_path, "", fs::path(name_or_path).is_absolute()
                                             ? "no such file"
                                             : "no such file (resolved against the working directory)");
    return name_or_path;
  }
  const fs::path preset = fs::path(data_dir()) / kind / (name_or_path + ".json");
  if (fs::exists(preset, ec))
    return preset.string();
  std::string known;
  for (const auto& p : list_presets(kind))
    known += (known.empty() ? "" : ", ") + p.name;
  const std::string singular = kind == "topologies" ? "topology" : kind.substr(0, kind.size() - 1);
  throw InputError(option, "", fmt::format("unknown {} preset {} (known: {})", singular, echo(name_or_path),
                                           known.empty() ? "none" : known));
}

} // namespace ccsim::io
