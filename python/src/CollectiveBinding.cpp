// ccsim._core.collective: `ccsim collective --format json` as a call: one collective over nccl-tests' size sweep on
// every rank count, simulated in forked children (api/run/CollectiveSweep.hpp).
#include "Bindings.hpp"
#include "Flags.hpp"

#include "algorithms/CollectiveOps.hpp"
#include "api/run/CollectiveSweep.hpp"
#include "api/run/ResolvedRun.hpp"
#include "io/JsonInput.hpp"

#include <fmt/format.h>

#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace ccsim::python {

namespace {
std::string collective(const std::string& op, const std::pair<std::string, std::optional<std::string>>& topology,
                       const std::vector<std::string>& gpus, const std::map<std::string, std::string>& flags,
                       bool with_kernels)
{
  nb::gil_scoped_release release;
  const Flags f(flags);
  const auto* bench = algorithms::find_collective_bench(op);
  if (bench == nullptr)
    throw io::InputError("--op", "", io::echo(op) + " is not one of: " + algorithms::collective_bench_names());
  const auto lo     = static_cast<std::uint64_t>(f.integer("minbytes", io::range::kCollectiveBytes).value_or(8));
  const auto hi     = static_cast<std::uint64_t>(f.integer("maxbytes", io::range::kCollectiveBytes).value_or(128 << 20));
  const auto factor = static_cast<std::uint64_t>(f.integer("stepfactor", io::range::kStepFactor).value_or(2));
  if (hi < lo)
    throw io::InputError("--maxbytes", "", fmt::format("{} is below --minbytes {}", hi, lo));
  const auto fidelity =
      f.choice("fidelity", {"exact", "fast"}).value_or("fast") == "exact" ? sim::Fidelity::EXACT : sim::Fidelity::FAST;
  sim::Topology topo = api::load_topology(input_source(topology.first, topology.second));
  if (const auto bw = f.number("bandwidth-gbps", io::range::kLinkGbps))
    sim::override_inter_node_bandwidth(topo, *bw);
  if (const auto lat = f.number("latency-us", io::range::kLatencyUs))
    sim::override_inter_node_latency(topo, *lat);
  if (gpus.empty())
    throw io::InputError("--gpus", "", "names no rank count (give one, or a list)");
  if (gpus.size() > 64) // as cli/Options.cpp's integer_list_flag
    throw io::InputError("--gpus", "", "lists more than 64 values");
  std::vector<int> ranks;
  for (const auto& text : gpus) {
    const auto n = io::parse_integer(text, io::Range{2, io::range::kGpus.hi}, "--gpus");
    if (n > topo.max_gpus())
      throw io::InputError("--gpus", "", fmt::format("{} GPUs requested but topology {} has {}", n, topo.name,
                                                     topo.max_gpus()));
    ranks.push_back(static_cast<int>(n));
  }
  const auto table =
      api::run_collective_bench(topo, *bench, ranks, api::sweep_sizes(lo, hi, factor), fidelity, with_kernels);
  return io::dump_json(api::to_json(table, *bench, topo, ranks, fidelity));
}
} // namespace

void bind_collective(nb::module_& m)
{
  m.def("collective", &collective, nb::arg("op"), nb::arg("topology"), nb::arg("gpus"), nb::arg("flags"),
        nb::arg("with_kernels"), "The `ccsim collective --format json` document as text.");
}

} // namespace ccsim::python
