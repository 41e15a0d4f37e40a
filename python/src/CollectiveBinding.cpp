// ccsim._core.collective: `ccsim collective --format json` as a call: one collective over nccl-tests' size sweep on
// every rank count, simulated in forked children (api/run/CollectiveSweep.hpp). Its arguments go through collective's
// own builder (api/options/CollectiveCommand.hpp).
#include "Bindings.hpp"
#include "Given.hpp"

#include "api/options/CollectiveCommand.hpp"
#include "io/JsonInput.hpp"

#include <nanobind/stl/map.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace ccsim::python {

namespace {
std::string collective(const Texts& texts, const Documents& documents)
{
  nb::gil_scoped_release release;
  const auto& options = api::collective_options().options();
  return python_errors(options, [&] {
    const auto run   = api::resolve_collective(api::build_collective(given_values(options, texts, documents)));
    const auto table = api::run_collective_bench(run.topo, *run.bench, run.ranks, run.sizes, run.fidelity,
                                                 run.with_kernels);
    return io::dump_json(api::to_json(table, *run.bench, run.topo, run.ranks, run.fidelity));
  });
}
} // namespace

void bind_collective(nb::module_& m)
{
  m.def("collective", &collective, nb::arg("texts"), nb::arg("documents"),
        "The `ccsim collective --format json` document as text.");
}

} // namespace ccsim::python
