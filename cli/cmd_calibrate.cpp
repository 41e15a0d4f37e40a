// `ccsim calibrate`: fits a topology's constants to measurements of the real cluster and writes the calibrated
// topology: the NIC bandwidth and latency from a collective (--nccl-tests, api/calibration/CalibrateNccl.hpp), or any
// constants from step times (--steps, api/calibration/CalibrateSteps.hpp). This file parses flags and prints the fit.
#include "api/calibration/CalibrateNccl.hpp"
#include "api/calibration/CalibrateSteps.hpp"
#include "api/calibration/Refit.hpp"
#include "api/output/Table.hpp"
#include "cli/Command.hpp"
#include "cli/Options.hpp"
#include "sim/Topology.hpp"
#include "sim/io/JsonInput.hpp"

#include <fmt/format.h>

#include <iostream>

namespace ccsim::cli {

/// calibrate --steps: the fit itself is cli/CalibrateSteps; this prints it.
static int calibrate_steps_command(const po::variables_map& vm, const std::string& topo_path, const std::string& format)
{
  const auto jobs = static_cast<int>(*integer_flag(vm, "jobs", io::range::kJobs));
  const std::vector<std::string> constants =
      vm.count("fit") ? vm["fit"].as<std::vector<std::string>>()
                      : std::vector<std::string>{"/gpu/sustained_tflops", "/nic/effective_gbps"};
  // A path, or an experiment's name: the presets' own calibration tables regenerate their constants this way.
  const std::string steps = io::resolve_preset("experiments", vm["steps"].as<std::string>(), "--steps");
  const std::string out   = vm["out"].as<std::string>();
  const auto r = calibrate_steps(topo_path, steps, constants, jobs, out);
  if (format != "table") { // json, or csv: a row per measured value
    const nlohmann::json doc = to_json(r, out);
    print_json_or_csv(format == "json" ? Format::JSON : Format::CSV, doc, doc["rows"].get<std::vector<nlohmann::json>>());
    return 0;
  }
  std::string changed;
  for (std::size_t c = 0; c < r.constants.size(); ++c)
    changed += fmt::format("{}{} {:.6g} -> {:.6g}", changed.empty() ? "" : ", ", r.constants[c], r.before[c], r.after[c]);
  std::cout << fmt::format("{}: {} values -> {} (rms log error {:.3g}); written to {}\n", io::printable(steps, 200),
                           r.rows.size(), changed, r.rms_log_error, io::printable(out, 200));
  Table t({"row", "metric", "measured", "before", "after", "error after (%)"});
  for (const auto& row : r.rows)
    t.add_row({row["label"].get<std::string>(), row["metric"].get<std::string>(),
               format_number(row["measured"].get<double>()), format_number(row["predicted_before"].get<double>()),
               format_number(row["predicted_after"].get<double>()),
               format_number(error_pct(row["predicted_after"].get<double>(), row["measured"].get<double>()), 3)});
  t.print(std::cout, table_width());
  return 0;
}

int cmd_calibrate(const std::vector<std::string>& args)
{
  po::options_description desc("ccsim calibrate options");
  desc.add_options()("help,h", "show this help and exit")(
      "format", po::value<std::string>()->default_value("table"), "output: table (for people), json (one document) or csv (its rows)")(
      "topology", po::value<std::string>()->required(), "the cluster's topology preset or JSON file to start from")(
      "nccl-tests", po::value<std::string>()->value_name("FILE"),
      "text output of nccl-tests (all_reduce_perf, all_gather_perf, ...) or of ccsim collective")(
      "steps", po::value<std::string>()->value_name("FILE"),
      "measured step times (or any experiment metric) per configuration, in the experiment format (experiments/SCHEMA.md: each row's \"paper\" holds the measurement); every row runs on --topology")(
      "fit", po::value<std::vector<std::string>>()->value_name("POINTER"),
      "with --steps: a constant of the topology to fit, as a JSON pointer (repeatable; default /gpu/sustained_tflops and /nic/effective_gbps)")(
      "jobs", po::value<std::string>()->default_value("2"), "with --steps: simulations at once")(
      "out", po::value<std::string>()->required()->value_name("NEW.json"), "where to write the calibrated topology")(
      "op", po::value<std::string>(), "the collective measured, when the file does not say (all_reduce, ...)")(
      "ranks", po::value<std::string>()->value_name("N"), "ranks in the measurement, when the file does not say")(
      "fidelity", po::value<std::string>()->default_value("fast"), "fidelity of the replay: exact or fast");
  add_wide_option(desc);
  po::variables_map vm;
  if (!parse_options("calibrate", args, desc, vm))
    return 0;
  const std::string format = choice_flag(vm, "format", {"table", "json", "csv"});
  const auto fidelity = choice_flag(vm, "fidelity", {"exact", "fast"}) == "exact" ? sim::Fidelity::EXACT
                                                                                   : sim::Fidelity::FAST;
  const std::string topo_path = io::resolve_preset("topologies", vm["topology"].as<std::string>(), "--topology");
  (void)sim::load_topology(topo_path); // its own one-line errors first
  if (vm.count("nccl-tests") == vm.count("steps"))
    throw io::InputError("--nccl-tests", "",
                         "give --nccl-tests FILE (NIC bandwidth and latency from a collective) or --steps FILE (any "
                         "constants from step times); for both, run calibrate twice, the second from the first's --out");
  if (vm.count("fit") && !vm.count("steps"))
    throw io::InputError("--fit", "", "chooses the constants of --steps; --nccl-tests always fits the NIC rate and latency");
  if (vm.count("steps"))
    return calibrate_steps_command(vm, topo_path, format);
  NcclCalibrationRequest req;
  req.topology = vm["topology"].as<std::string>();
  req.file     = vm["nccl-tests"].as<std::string>();
  if (vm.count("op"))
    req.op = vm["op"].as<std::string>();
  if (const auto ranks = integer_flag(vm, "ranks", io::Range{2, io::range::kGpus.hi}))
    req.ranks = static_cast<int>(*ranks);
  req.fidelity     = fidelity;
  req.out          = vm["out"].as<std::string>();
  const auto c     = calibrate_nccl(req);
  const auto& file = req.file;
  const auto& out  = req.out;
  if (format != "table") { // json, or csv: a row per measured value
    const nlohmann::json doc = to_json(c, out);
    print_json_or_csv(format == "json" ? Format::JSON : Format::CSV, doc, doc["rows"].get<std::vector<nlohmann::json>>());
    return 0;
  }
  std::cout << fmt::format("{}: {} over {} ranks, {} sizes -> nic.effective_gbps {:.6g}, nic.latency_us {:.6g} "
                           "(rms relative error {:.3g}, worst {:.3g}); written to {}\n",
                           io::printable(file, 200), c.op, c.ranks, c.sizes.size(), c.gbps, c.latency_us,
                           c.rms_relative_error, c.worst_relative_error, io::printable(out, 200));
  Table t({"size (B)", "measured (us)", "fitted (us)", "error (%)"});
  for (std::size_t i = 0; i < c.sizes.size(); ++i)
    t.add_row({std::to_string(c.sizes[i]), format_number(c.measured_s[i] * 1e6), format_number(c.predicted_s[i] * 1e6),
               format_number(100 * (c.predicted_s[i] - c.measured_s[i]) / c.measured_s[i], 3)});
  t.print(std::cout, table_width());
  return 0;
}

} // namespace ccsim::cli
