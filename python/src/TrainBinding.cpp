// ccsim._core.train: `ccsim train --format json` as a call (api/training/TrainRuns.hpp): genuine convergence runs of
// a proxy model through the real compressors, one per algorithm, with a progress callback that may stop the run by
// raising (the training loop runs in this process, so nothing is left running when it does). Its arguments go through
// train's own builder (api/options/TrainCommand.hpp).
#include "Bindings.hpp"
#include "Callback.hpp"
#include "Given.hpp"

#include "api/options/TrainCommand.hpp"
#include "io/JsonInput.hpp"

#include <nanobind/stl/map.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace ccsim::python {

namespace {
std::string train(const Texts& texts, const Documents& documents, nb::object progress)
{
  Callback on_progress(std::move(progress));
  nb::gil_scoped_release release;
  const auto& options = api::train_options().options();
  return python_errors(options, [&] {
    api::TrainCommand command = api::build_train(given_values(options, texts, documents));
    if (!on_progress.empty())
      command.on_progress = [&](const std::string& what, double done, double total, const std::string& unit,
                                const std::string& note) { on_progress.call_or_throw(what, done, total, unit, note); };
    std::vector<std::string> notes;
    command.on_note    = [&](const std::string& note) { notes.push_back(note); };
    const auto outcome = api::train_algorithms(command);
    nlohmann::json runs = nlohmann::json::array();
    for (const auto& r : outcome.runs)
      runs.push_back(api::to_json(r));
    api::write_train_files(command, runs);
    return io::dump_json({{"runs", runs}, {"stopped", outcome.stopped}, {"notes", notes}});
  });
}
} // namespace

void bind_train(nb::module_& m)
{
  m.def("train", &train, nb::arg("texts"), nb::arg("documents"), nb::arg("progress").none(),
        "The runs of `ccsim train --format json` ({\"runs\": [...]}) as text, with notes and how far a stop got.");
}

} // namespace ccsim::python
