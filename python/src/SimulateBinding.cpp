// ccsim._core.simulate: one configuration, as `ccsim simulate --format json` answers it. The simulation runs in a
// forked child (api::start_isolated: SimGrid's Engine is one per process), so a notebook may call it any number of
// times and from many threads; the Python process never creates an Engine. Also the topology and workload loaders.
#include "Bindings.hpp"
#include "Given.hpp"

#include "api/options/SimulateCommand.hpp"
#include "api/process/Isolation.hpp"
#include "api/run/ReportJson.hpp"
#include "api/run/ResolvedRun.hpp"
#include "api/run/Simulation.hpp"
#include "sim/platform/Topology.hpp"
#include "sim/model/Workload.hpp"
#include "io/JsonInput.hpp"

#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <poll.h>
#include <stdexcept>

namespace ccsim::python {

namespace {
/// Forks one at a time. A child forked while another child's pipe is between pipe2() and the parent's close() of its
/// write end would inherit that write end, and the other caller would wait for EOF until this child exits too.
std::mutex g_fork_mutex;

/// The child's report. While it runs, the waiting thread looks at Python's signals every 0.1 s: Ctrl-C in a notebook
/// kills the child and raises KeyboardInterrupt (ccsim itself installs no signal handler inside Python).
api::SimulationReport simulate_in_child(const api::SimulateRequest& req)
{
  api::IsolatedRun run;
  {
    std::lock_guard<std::mutex> lock(g_fork_mutex);
    run = api::start_isolated(req);
  }
  for (;;) {
    pollfd answer{run.fd, POLLIN, 0};
    const int ready = poll(&answer, 1, 100);
    if (ready > 0)
      break;
    if (ready < 0 && errno != EINTR) {
      api::abandon_isolated(run);
      throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
    }
    nb::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) {
      api::abandon_isolated(run);
      throw nb::python_error();
    }
  }
  return api::report_from_json(api::finish_isolated(run));
}

/// `simulate`'s given values through its builder (api/options/SimulateCommand.hpp), simulated in a child; the
/// trace and heat map written where the options ask.
std::string simulate(const Texts& texts, const Documents& documents)
{
  nb::gil_scoped_release release;
  const auto& options = api::simulate_options().options();
  return python_errors(options, [&] {
    const api::SimulateCommand command = api::build_simulate(given_values(options, texts, documents));
    api::SimulationReport report       = simulate_in_child(command);
    api::write_simulate_files(command, report);
    return io::dump_json(api::to_json(report));
  });
}

/// A topology's or workload's document, checked by its loader: the preset or file as written, or the dict's JSON.
std::string load_input(const std::string& kind, const std::string& name, const std::optional<std::string>& json_text)
{
  nb::gil_scoped_release release;
  const auto source = json_text ? api::InputSource::from_document(io::parse_json_text(*json_text, name), name)
                                : api::InputSource(name);
  const std::string where =
      source.document ? name : io::resolve_preset(kind, name, kind == "topologies" ? "--topology" : "--workload");
  const nlohmann::json doc = source.document ? *source.document : io::read_json_file(where);
  if (kind == "topologies")
    (void)sim::topology_from_json(doc, where);
  else
    (void)sim::workload_from_json(doc, where);
  return io::dump_json(doc);
}
} // namespace

void bind_simulate(nb::module_& m)
{
  m.def("simulate", &simulate, nb::arg("texts"), nb::arg("documents"),
        "One configuration in a forked child; the `ccsim simulate --format json` document as text.");
  m.def("load_input", &load_input, nb::arg("kind"), nb::arg("name"), nb::arg("json_text").none(),
        "A topology's or workload's document (kind: topologies | workloads), checked by its loader, as JSON text.");
}

} // namespace ccsim::python
