// ccsim._core.calibrate: `ccsim calibrate --format json` as a call: a topology's collective constants fitted to
// nccl-tests logs (api/calibration/CalibrateNccl.hpp), or any constants to measured step times
// (api/calibration/CalibrateSteps.hpp); the calibrated topology is written to `out`. Its arguments go through
// calibrate's own builder (api/options/CalibrateCommand.hpp).
#include "Bindings.hpp"
#include "Given.hpp"

#include "api/calibration/CalibrateSteps.hpp"
#include "api/options/CalibrateCommand.hpp"
#include "io/JsonInput.hpp"

#include <nanobind/stl/map.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace ccsim::python {

namespace {
std::string calibrate(const Texts& texts, const Documents& documents)
{
  nb::gil_scoped_release release;
  const auto& options = api::calibrate_options().options();
  return python_errors(options, [&] {
    const api::CalibrateCommand c = api::build_calibrate(given_values(options, texts, documents));
    if (c.steps)
      return io::dump_json(api::to_json(api::calibrate_steps(c.topology_path, *c.steps, c.fit, c.jobs, c.out), c.out));
    return io::dump_json(api::to_json(api::calibrate_nccl(c.nccl_request()), c.out));
  });
}
} // namespace

void bind_calibrate(nb::module_& m)
{
  m.def("calibrate", &calibrate, nb::arg("texts"), nb::arg("documents"),
        "The `ccsim calibrate --format json` document as text.");
}

} // namespace ccsim::python
