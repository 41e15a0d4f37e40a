// ccsim._core.validate, bench_kernels and bench_compute: `ccsim validate --format json` as a call (api/calibration/Validation.hpp): every fit of the
// calibration fits file refitted in-sample and leaving tables and rows out, each prediction against the paper's value.
// Its arguments go through validate's own builder (api/options/ValidateCommand.hpp). Also the kernel benchmark.
#include "Bindings.hpp"
#include "Callback.hpp"
#include "Given.hpp"

#include "api/options/BenchComputeCommand.hpp"
#include "api/options/BenchKernelsCommand.hpp"
#include "api/options/ValidateCommand.hpp"
#include "api/run/Backends.hpp"
#include "api/run/ComputeCompare.hpp"
#include "io/JsonInput.hpp"

#include <nanobind/stl/map.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace ccsim::python {

namespace {
std::string validate(const Texts& texts, const Documents& documents, nb::object progress)
{
  Callback on_progress(std::move(progress));
  std::string answer;
  {
    nb::gil_scoped_release release;
    const auto& options = api::validate_options().options();
    answer = python_errors(options, [&] {
      api::ValidateCommand command = api::build_validate(given_values(options, texts, documents));
      if (!on_progress.empty())
        command.on_progress = [&](const std::string& what, std::size_t done, std::size_t total) {
          on_progress.call_or_keep(what, done, total);
        };
      const auto result = api::validate_fits(command);
      api::write_validate_files(command, result);
      return io::dump_json(api::to_json(result));
    });
  }
  on_progress.rethrow_kept();
  return answer;
}

/// `ccsim bench-kernels --format json`'s document (api/run/Backends.hpp), through bench-kernels' own builder.
std::string bench_kernels(const Texts& texts, const Documents& documents)
{
  nb::gil_scoped_release release;
  const auto& options = api::bench_kernels_options().options();
  return python_errors(options, [&] {
    const auto c = api::build_bench_kernels(given_values(options, texts, documents));
    return io::dump_json(api::bench_kernels_json(api::bench_kernels(c.backend, c.bytes, c.repeats, c.threads),
                                                 c.threads));
  });
}
/// `ccsim bench-compute --format json`'s document (api/run/ComputeCompare.hpp): a comparison of a measurement with the
/// model (the package has no CUDA: measuring raises InputError).
std::string bench_compute(const Texts& texts, const Documents& documents)
{
  nb::gil_scoped_release release;
  const auto& options = api::bench_compute_options().options();
  return python_errors(options, [&] {
    const auto c = api::build_bench_compute(given_values(options, texts, documents));
    return io::dump_json(api::run_bench_compute(c.compare, c.topology_path, c.fit, c.quick, c.trials));
  });
}
} // namespace

void bind_validate(nb::module_& m)
{
  m.def("validate", &validate, nb::arg("texts"), nb::arg("documents"), nb::arg("progress").none(),
        "The `ccsim validate --format json` document as text.");
  m.def("bench_kernels", &bench_kernels, nb::arg("texts"), nb::arg("documents"),
        "The `ccsim bench-kernels --format json` document as text.");
  m.def("bench_compute", &bench_compute, nb::arg("texts"), nb::arg("documents"),
        "The `ccsim bench-compute --format json` document as text.");
}

} // namespace ccsim::python
