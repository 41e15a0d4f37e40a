// Loading experiments/calibration/fits.json through the one validation layer.
#include "api/calibration/CalibrationFits.hpp"

#include "api/experiment/Experiment.hpp"
#include "io/JsonInput.hpp"

#include <fmt/format.h>

#include <filesystem>

namespace ccsim::api {

std::string default_fits_path()
{
  return (std::filesystem::path(io::data_dir()) / "experiments" / "calibration" / "fits.json").string();
}

std::string constant_problem(const nlohmann::json& topo, const std::string& topo_path, const std::string& pointer)
{
  nlohmann::json::json_pointer p;
  try {
    p = nlohmann::json::json_pointer(pointer);
  } catch (const nlohmann::json::exception&) {
    return fmt::format("{} is not a JSON pointer", io::echo(pointer));
  }
  if (!topo.contains(p) || !topo.at(p).is_number() || !(topo.at(p).get<double>() > 0))
    return fmt::format("{} is not a positive number in {}", io::echo(pointer), topo_path);
  // A physical constant carries its unit in its key (topologies/SCHEMA.md: *_gbps, *_us, ...), or in the object that
  // holds it (gpu.kernel_gbps.<kernel>). Counts and structure (gpus_per_node, max_nodes, nic.count) are not
  // measured: a fit would make them fractional (4 GPUs per node refitted to 2.001).
  const auto physical = [](const std::string& key) {
    for (const char* unit : {"_gbps", "_tflops", "_us", "_ms", "_s", "_gb", "_efficiency"}) {
      const std::string u(unit);
      if (key.size() > u.size() && key.compare(key.size() - u.size(), u.size(), u) == 0)
        return true;
    }
    return false;
  };
  const std::string key = p.back();
  const std::string holder = p.parent_pointer().empty() ? "" : p.parent_pointer().back();
  if (!physical(key) && !physical(holder))
    return fmt::format("{} is not a physical constant (a rate, time, capacity or efficiency whose key names its "
                       "unit: *_gbps, *_tflops, *_us, *_ms, *_s, *_gb, *_efficiency); counts and structure are not fitted",
                       io::echo(pointer));
  return "";
}

namespace {
/// Runs `load` on a file the fits file names at `pointer`; an error there (a missing path, an unknown preset, a
/// malformed table) is reported at that entry too, so its one line says which fits file pointed where.
template <typename Load> void named_here(const std::string& path, const std::string& pointer, Load load)
{
  try {
    load();
  } catch (const io::InputError& e) {
    const std::string inner = e.where().empty() ? e.problem() : e.what();
    throw io::InputError(path, pointer, inner);
  }
}
} // namespace

std::vector<CalibrationFit> load_calibration_fits(const std::string& path)
{
  const auto doc = io::read_json_file(path);
  const io::JsonObject root(doc, path);
  root.allow_only({"fits"});
  const auto items = root.objects("fits");
  if (items.empty())
    root.fail_at("fits", "lists no fit");
  std::vector<CalibrationFit> fits;
  for (const auto& f : items) {
    f.allow_only({"topology", "constants", "tables"});
    CalibrationFit fit;
    fit.topology  = f.string("topology");
    fit.constants = f.strings("constants");
    fit.tables    = f.strings("tables");
    fit.source    = f.string_or("source", "");
    if (fit.constants.empty() || fit.constants.size() > 4)
      f.fail_at("constants", fmt::format("fits 1 to 4 constants, not {}", fit.constants.size()));
    if (fit.tables.empty())
      f.fail_at("tables", "names no calibration table");
    // Each constant must be a positive number of the topology file: the refit scales it.
    const auto topo_pointer = f.child_pointer("topology");
    std::string topo_path;
    nlohmann::json topo;
    named_here(path, topo_pointer, [&] {
      topo_path = io::resolve_preset("topologies", fit.topology, "");
      topo      = io::read_json_file(topo_path);
    });
    for (std::size_t i = 0; i < fit.constants.size(); ++i)
      if (const auto problem = constant_problem(topo, topo_path, fit.constants[i]); !problem.empty())
        throw io::InputError(path, f.child_pointer("constants") + "/" + std::to_string(i), problem);
    for (std::size_t i = 0; i < fit.tables.size(); ++i)
      named_here(path, f.child_pointer("tables") + "/" + std::to_string(i),
                 [&] { (void)load_experiment(io::resolve_preset("experiments", fit.tables[i], "")); });
    fits.push_back(std::move(fit));
  }
  return fits;
}

} // namespace ccsim::api
