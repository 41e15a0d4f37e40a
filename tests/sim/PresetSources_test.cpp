// docs/design/DESIGN.md "Presets": every calibrated number in a topology or workload preset carries
// a "source" note naming the paper table. Checked structurally: every JSON object that holds a number has a
// note key of its own ("source", "source_<x>"), or its parent names it with "source_<key>".
#include "io/JsonInput.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace {
bool has_source(const nlohmann::json& object)
{
  for (const auto& [key, _] : object.items())
    if (key.rfind("source", 0) == 0)
      return true;
  return false;
}

void collect_unsourced(const nlohmann::json& value, const std::string& pointer, bool parent_names_it,
                       std::vector<std::string>& out)
{
  if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i)
      collect_unsourced(value[i], pointer + "/" + std::to_string(i), parent_names_it, out);
    return;
  }
  if (!value.is_object())
    return;
  bool holds_number = false;
  for (const auto& [key, v] : value.items())
    holds_number = holds_number || (v.is_number() && key.rfind("source", 0) != 0);
  if (holds_number && !parent_names_it && !has_source(value))
    out.push_back(pointer.empty() ? "/" : pointer);
  for (const auto& [key, v] : value.items())
    collect_unsourced(v, pointer + "/" + key, value.contains("source_" + key), out);
}

void check_kind(const std::string& kind, std::size_t at_least)
{
  const auto presets = ccsim::io::list_presets(kind);
  CHECK(presets.size() >= at_least);
  for (const auto& p : presets) {
    std::vector<std::string> unsourced;
    collect_unsourced(ccsim::io::read_json_file(p.path), "", false, unsourced);
    INFO(p.path);
    for (const auto& u : unsourced)
      FAIL_CHECK("numbers without a source note at " << u);
  }
}
} // namespace

TEST_CASE("PresetSources: every number in a topology preset has a source note", "[sim]")
{
  check_kind("topologies", 7); // the 7 clusters of docs/design/DESIGN.md
}

TEST_CASE("PresetSources: every number in a workload preset has a source note", "[sim]")
{
  check_kind("workloads", 13); // the 13 models of docs/design/DESIGN.md
}
