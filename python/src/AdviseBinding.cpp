// ccsim._core.advise: `ccsim advise --format json` as a call (api/advise/Advisor.hpp): every algorithm that fits the
// cluster and model, simulated and ranked by time-to-accuracy. Its arguments go through advise's own builder
// (api/options/AdviseCommand.hpp).
#include "Bindings.hpp"
#include "Callback.hpp"
#include "Given.hpp"

#include "api/options/AdviseCommand.hpp"
#include "api/options/OptionSpelling.hpp"
#include "io/JsonInput.hpp"

#include <nanobind/stl/map.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace ccsim::python {

namespace {
std::string advise(const Texts& texts, const Documents& documents, nb::object progress)
{
  Callback on_progress(std::move(progress));
  std::string answer;
  {
    nb::gil_scoped_release release;
    const auto& options = api::advise_options().options();
    answer = python_errors(options, [&] {
      api::AdviseCommand command = api::build_advise(given_values(options, texts, documents));
      if (!on_progress.empty())
        command.on_progress = [&](const std::string& what, std::size_t done, std::size_t total,
                                  const std::string& unit) { on_progress.call_or_keep(what, done, total, unit); };
      api::AdviseReport report = api::advise(command);
      api::write_advise_files(command, report);
      // Why an algorithm cannot run, and the changes that would make it fit, name options as keywords ("tp=2").
      for (auto& c : report.cannot_run) {
        c.reason = api::python_spelling(c.reason, options);
        for (auto& f : c.would_fit)
          f.change = api::python_spelling(f.change, options);
      }
      return io::dump_json(api::to_json(report));
    });
  }
  on_progress.rethrow_kept();
  return answer;
}
} // namespace

void bind_advise(nb::module_& m)
{
  m.def("advise", &advise, nb::arg("texts"), nb::arg("documents"), nb::arg("progress").none(),
        "The `ccsim advise --format json` document as text.");
}

} // namespace ccsim::python
