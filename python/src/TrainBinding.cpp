// ccsim._core.train: `ccsim train --format json` as a call (api/training/TrainRuns.hpp): genuine convergence runs of
// a proxy model through the real compressors, one per algorithm, with a progress callback that may stop the run by
// raising (the training loop runs in this process, so nothing is left running when it does).
#include "Bindings.hpp"
#include "Callback.hpp"
#include "Flags.hpp"

#include "api/run/Backends.hpp"
#include "api/training/TrainRuns.hpp"
#include "io/JsonInput.hpp"

#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace ccsim::python {

namespace {
using Source = std::optional<std::pair<std::string, std::optional<std::string>>>;

std::string train(const std::vector<std::string>& algorithm_list, const std::string& algorithm_text,
                  const std::map<std::string, std::string>& flags, const std::map<std::string, std::string>& params,
                  const Source& topology, const Source& workload, nb::object progress)
{
  Callback on_progress(std::move(progress));
  nb::gil_scoped_release release;
  const Flags f(flags);
  if (algorithm_list.empty())
    throw io::InputError("--algorithm", "", "names no algorithm (give one, or a comma-separated list)");
  api::TrainRequest req;
  req.kernels = &api::kernels_for(f.choice("backend", {"cpu", "cuda"}).value_or("cpu"));
  if (topology.has_value() != f.has("gpus"))
    throw io::InputError(topology ? "--gpus" : "--topology", "", "--topology and --gpus go together");
  req.algorithms = algorithm_list;
  req.hyper      = api::train_hyper(params, algorithm_list, algorithm_text);
  req.model      = f.text("model").value_or("mlp");
  req.workers    = static_cast<int>(f.integer("workers", io::range::kWorkers).value_or(16));
  if (const auto steps = f.integer("steps", io::range::kSteps))
    req.steps = static_cast<int>(*steps);
  if (const auto batch = f.integer("global-batch", io::range::kTrainBatch))
    req.global_batch = static_cast<int>(*batch);
  req.seed = static_cast<std::uint64_t>(f.integer("seed", io::range::kSeed).value_or(1));
  req.task = f.choice("task", {"scratch", "finetune"}).value_or("scratch");
  if (req.task == "scratch" && (f.has("pretrain-steps") || f.has("cache-dir")))
    throw io::InputError(f.has("cache-dir") ? "--cache-dir" : "--pretrain-steps", "", "goes with --task finetune");
  req.pretrain_steps = static_cast<int>(f.integer("pretrain-steps", io::range::kSteps).value_or(400));
  req.cache_dir      = f.text("cache-dir").value_or("");
  if (topology) {
    req.topology = input_source(topology->first, topology->second);
    req.gpus     = static_cast<int>(*f.integer("gpus", io::range::kGpus));
    if (workload)
      req.workload = input_source(workload->first, workload->second);
  }
  if (!on_progress.empty())
    req.on_progress = [&](const std::string& what, double done, double total, const std::string& unit,
                          const std::string& note) { on_progress.call_or_throw(what, done, total, unit, note); };
  std::vector<std::string> notes;
  req.on_note = [&](const std::string& note) { notes.push_back(note); };
  const auto outcome = api::train_algorithms(req);
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& r : outcome.runs)
    runs.push_back(api::to_json(r));
  return io::dump_json({{"runs", runs}, {"stopped", outcome.stopped}, {"notes", notes}});
}
} // namespace

void bind_train(nb::module_& m)
{
  m.def("train", &train, nb::arg("algorithms"), nb::arg("algorithm_text"), nb::arg("flags"), nb::arg("params"),
        nb::arg("topology").none(), nb::arg("workload").none(), nb::arg("progress").none(),
        "The runs of `ccsim train --format json` ({\"runs\": [...]}) as text, with notes and how far a stop got.");
}

} // namespace ccsim::python
