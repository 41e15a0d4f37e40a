// ccsim._core.advise: `ccsim advise --format json` as a call (api/advise/Advisor.hpp): every algorithm that fits the
// cluster and model, simulated and ranked by time-to-accuracy.
#include "Bindings.hpp"
#include "Callback.hpp"
#include "Flags.hpp"

#include "api/advise/Advisor.hpp"
#include "api/advise/ConvergenceEvidence.hpp"
#include "io/JsonInput.hpp"

#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>

namespace ccsim::python {

namespace {
std::string advise(const std::pair<std::string, std::optional<std::string>>& topology,
                   const std::pair<std::string, std::optional<std::string>>& workload,
                   const std::map<std::string, std::string>& flags, const std::optional<std::string>& evidence,
                   bool search, nb::object progress)
{
  Callback on_progress(std::move(progress));
  std::string answer;
  {
    nb::gil_scoped_release release;
    const Flags f(flags);
    api::AdviseRequest req;
    req.topology = input_source(topology.first, topology.second);
    req.workload = input_source(workload.first, workload.second);
    read_shape(f, req.shape, /*parallelism=*/false);
    req.shape.bandwidth_gbps = f.number("bandwidth-gbps", io::range::kLinkGbps);
    req.epoch_samples        = f.number("epoch-samples", io::range::kEpochSamples).value_or(1e6);
    req.jobs                 = static_cast<int>(f.integer("jobs", io::range::kJobs).value_or(2));
    req.evidence_file        = evidence.value_or(api::default_evidence_path());
    (void)api::load_convergence_evidence(req.evidence_file); // its own one-line errors first, as the command does
    req.search = search;
    if (!on_progress.empty())
      req.on_progress = [&](const std::string& what, std::size_t done, std::size_t total, const std::string& unit) {
        on_progress.call_or_keep(what, done, total, unit);
      };
    answer = io::dump_json(api::to_json(api::advise(req)));
  }
  on_progress.rethrow_kept();
  return answer;
}
} // namespace

void bind_advise(nb::module_& m)
{
  m.def("advise", &advise, nb::arg("topology"), nb::arg("workload"), nb::arg("flags"), nb::arg("evidence").none(),
        nb::arg("search"), nb::arg("progress").none(), "The `ccsim advise --format json` document as text.");
}

} // namespace ccsim::python
