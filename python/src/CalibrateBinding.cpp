// ccsim._core.calibrate: `ccsim calibrate --format json` as a call: a topology's collective constants fitted to an
// nccl-tests log (api/calibration/CalibrateNccl.hpp), or any constants to measured step times
// (api/calibration/CalibrateSteps.hpp); the calibrated topology is written to `out`.
#include "Bindings.hpp"
#include "Flags.hpp"

#include "api/calibration/CalibrateNccl.hpp"
#include "api/calibration/CalibrateSteps.hpp"
#include "sim/platform/Topology.hpp"
#include "io/JsonInput.hpp"

#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace ccsim::python {

namespace {
std::string calibrate(const std::string& topology, const std::optional<std::string>& nccl_tests,
                      const std::optional<std::string>& steps, const std::string& out,
                      const std::optional<std::vector<std::string>>& fit, const std::map<std::string, std::string>& flags)
{
  nb::gil_scoped_release release;
  const Flags f(flags);
  const auto fidelity =
      f.choice("fidelity", {"exact", "fast"}).value_or("fast") == "exact" ? sim::Fidelity::EXACT : sim::Fidelity::FAST;
  const std::string topo_path = io::resolve_preset("topologies", topology, "--topology");
  (void)sim::load_topology(topo_path); // its own one-line errors first
  if (nccl_tests.has_value() == steps.has_value())
    throw io::InputError("--nccl-tests", "",
                         "give --nccl-tests FILE (collective constants from nccl-tests logs) or --steps FILE (any "
                         "constants from step times); for both, run calibrate twice, the second from the first's --out");
  if (fit && !steps)
    throw io::InputError("--fit", "", "chooses the constants of --steps; --nccl-tests fits what its logs can see");
  if (steps) {
    const auto jobs = static_cast<int>(f.integer("jobs", io::range::kJobs).value_or(2));
    const std::vector<std::string> constants =
        fit ? *fit : std::vector<std::string>{"/gpu/sustained_tflops", "/nic/effective_gbps"};
    const std::string steps_path = io::resolve_preset("experiments", *steps, "--steps");
    return io::dump_json(api::to_json(api::calibrate_steps(topo_path, steps_path, constants, jobs, out), out));
  }
  api::NcclCalibrationRequest req;
  req.topology    = topology;
  req.files       = {*nccl_tests};
  req.op          = f.text("op");
  req.algo        = f.text("algo");
  req.proto       = f.text("proto");
  req.tuner_table = f.text("tuner-table");
  if (const auto ranks = f.integer("ranks", io::Range{2, io::range::kGpus.hi}))
    req.ranks = static_cast<int>(*ranks);
  req.fidelity = fidelity;
  req.out      = out;
  return io::dump_json(api::to_json(api::calibrate_nccl(req), out));
}
} // namespace

void bind_calibrate(nb::module_& m)
{
  m.def("calibrate", &calibrate, nb::arg("topology"), nb::arg("nccl_tests").none(), nb::arg("steps").none(),
        nb::arg("out"), nb::arg("fit").none(), nb::arg("flags"), "The `ccsim calibrate --format json` document as text.");
}

} // namespace ccsim::python
