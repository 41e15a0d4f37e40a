// `ccsim calibrate`: fits a topology's constants to measurements of the real cluster and writes the calibrated
// topology: the collective constants from nccl-tests logs (--nccl-tests, api/calibration/CalibrateNccl.hpp), or any
// constants from step times (--steps, api/calibration/CalibrateSteps.hpp). This file parses flags and prints the fit.
#include "api/calibration/CalibrateNccl.hpp"
#include "api/calibration/CalibrateSteps.hpp"
#include "api/calibration/Refit.hpp"
#include "api/output/Table.hpp"
#include "cli/Command.hpp"
#include "cli/Options.hpp"
#include "sim/platform/Topology.hpp"
#include "io/JsonInput.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <optional>

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
    t.add_row({row.label, row.metric, format_number(row.measured), format_number(row.predicted_before),
               format_number(row.predicted_after), format_number(error_pct(row.predicted_after, row.measured), 3)});
  t.print(std::cout, table_width());
  return 0;
}

/// calibrate --nccl-tests --format table: what was read, what was fitted, then measured vs replayed per size.
static int print_nccl_table(const NcclCalibration& c, const std::string& out)
{
  for (const auto& l : c.logs)
    std::cout << fmt::format("{}: {} ({}) over {} ranks ({}){}{}\n", io::printable(l.file, 200), l.op, l.op_from,
                             l.ranks, l.ranks_from, l.nodes ? fmt::format(", {} nodes", *l.nodes) : "",
                             l.nccl_version ? ", NCCL " + io::printable(*l.nccl_version, 40) : "");
  if (c.nccl_model)
    for (const auto& k : c.constants)
      std::cout << fmt::format("  {} {:.6g} -> {:.6g}  (bounds {:.4g} .. {:.4g})\n", k.pointer, k.before, k.after, k.lo,
                               k.hi);
  else
    std::cout << fmt::format("  nic.effective_gbps -> {:.6g}, nic.latency_us -> {:.6g}\n", c.gbps, c.latency_us);
  for (const auto& w : c.warnings)
    std::cout << "WARNING " << w << "\n";
  for (const auto& n : c.notes)
    std::cout << "note: " << n << "\n";
  Table t({"size (B)", "measured (us)", "replayed (us)", "error (%)", "busbw meas. (GB/s)", "busbw repl. (GB/s)",
           "algorithm", "bound by"});
  for (const auto& r : c.rows)
    t.add_row({std::to_string(r.size) + (r.flagged ? " *" : ""), format_number(r.measured_us),
               format_number(r.predicted_us), format_number(100 * r.error(), 3), format_number(r.measured_busbw, 4),
               format_number(r.predicted_busbw, 4), r.algorithm + "/" + r.protocol, r.bottleneck});
  t.print(std::cout, table_width());
  const bool flagged = std::any_of(c.rows.begin(), c.rows.end(), [](const NcclCalibrationRow& r) { return r.flagged; });
  std::cout << fmt::format("median |error| {:.3g} %, worst {:.3g} %{}; written to {}\n", 100 * c.median_abs_error,
                           100 * c.worst_abs_error,
                           flagged ? " (rows marked * are bad measurements, out-of-place > 1.5 x in-place: not fitted "
                                     "or counted)"
                                   : "",
                           io::printable(out, 200));
  return 0;
}

int cmd_calibrate(const std::vector<std::string>& args)
{
  po::options_description desc("ccsim calibrate options");
  desc.add_options()("help,h", "show this help and exit")(
      "format", po::value<std::string>()->default_value("table"), "output: table (for people), json (one document) or csv (its rows)")(
      "topology", po::value<std::string>()->required(), "the cluster's topology preset or JSON file to start from")(
      "nccl-tests", po::value<std::vector<std::string>>()->value_name("FILE"),
      "text output of nccl-tests (all_reduce_perf, all_gather_perf, sendrecv_perf, ...) as the run printed it, or of "
      "ccsim collective; repeat it for several logs of the same cluster (e.g. 1 and 2 nodes) fitted together")(
      "steps", po::value<std::string>()->value_name("FILE"),
      "measured step times (or any experiment metric) per configuration, in the experiment format (experiments/SCHEMA.md: each row's \"paper\" holds the measurement); every row runs on --topology")(
      "fit", po::value<std::vector<std::string>>()->value_name("POINTER"),
      "with --steps: a constant of the topology to fit, as a JSON pointer (repeatable; default /gpu/sustained_tflops and /nic/effective_gbps)")(
      "jobs", po::value<std::string>()->default_value("2"), "with --steps: simulations at once")(
      "out", po::value<std::string>()->required()->value_name("NEW.json"), "where to write the calibrated topology")(
      "op", po::value<std::string>(), "the collective measured, where a log's header does not name it (all_reduce, ...; it replaces what the log's columns suggest)")(
      "ranks", po::value<std::string>()->value_name("N"), "ranks in the measurement, where a log shows none (no Rank lines, a bus factor of 1)")(
      "fidelity", po::value<std::string>()->default_value("fast"), "fidelity of the replay: exact or fast")(
      "algo", po::value<std::string>()->value_name("A"), "NCCL_ALGO the logs ran with (ring, tree, nvls, nvls_tree)")(
      "proto", po::value<std::string>()->value_name("P"), "NCCL_PROTO the logs ran with (LL, LL128, Simple)")(
      "tuner-table", po::value<std::string>()->value_name("FILE"),
      "a tuner plugin's choices by size, as {\"tuner_table\": [{\"max_bytes\": B, \"algorithm\": A, \"protocol\": P, "
      "\"channels\": C}, ...]} (topologies/SCHEMA.md); kept in the calibrated topology");
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
                         "give --nccl-tests FILE (collective constants from nccl-tests logs) or --steps FILE (any "
                         "constants from step times); for both, run calibrate twice, the second from the first's --out");
  if (vm.count("fit") && !vm.count("steps"))
    throw io::InputError("--fit", "", "chooses the constants of --steps; --nccl-tests fits what its logs can see");
  for (const char* flag : {"algo", "proto", "tuner-table", "op", "ranks"})
    if (vm.count(flag) && vm.count("steps"))
      throw io::InputError(std::string("--") + flag, "", "goes with --nccl-tests, not --steps");
  if (vm.count("steps"))
    return calibrate_steps_command(vm, topo_path, format);
  NcclCalibrationRequest req;
  req.topology = vm["topology"].as<std::string>();
  req.files    = vm["nccl-tests"].as<std::vector<std::string>>();
  auto text    = [&](const char* name) {
    return vm.count(name) ? std::optional<std::string>(vm[name].as<std::string>()) : std::nullopt;
  };
  req.op          = text("op");
  req.algo        = text("algo");
  req.proto       = text("proto");
  req.tuner_table = text("tuner-table");
  if (const auto ranks = integer_flag(vm, "ranks", io::Range{2, io::range::kGpus.hi}))
    req.ranks = static_cast<int>(*ranks);
  req.fidelity = fidelity;
  req.out      = vm["out"].as<std::string>();
  const auto c = calibrate_nccl(req);
  if (format != "table") { // json, or csv: a row per measured value
    const nlohmann::json doc = to_json(c, req.out);
    print_json_or_csv(format == "json" ? Format::JSON : Format::CSV, doc, doc["rows"].get<std::vector<nlohmann::json>>());
    return 0;
  }
  return print_nccl_table(c, req.out);
}

} // namespace ccsim::cli
