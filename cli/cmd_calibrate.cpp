// `ccsim calibrate`: fits a topology's inter-node constants — the delivered NIC bandwidth (`nic.effective_gbps`) and
// the one-way NIC latency (`nic.latency_us`) — to a collective measured on the real cluster (nccl-tests' text table,
// or `ccsim collective`'s), and writes the topology with the fitted values and a source note naming the file.
//
// The fit replays the measured collective in ccsim itself (same ring / hierarchical schedule, same fidelity) and
// moves the two constants by Gauss-Newton on the relative error of every row, so small sizes (latency-bound) weigh
// as much as large ones (bandwidth-bound). On an alpha-beta (rdma) topology the simulated time is affine in
// 1/bandwidth and in latency, so one step lands on the answer and the rest confirm it.
#include "algorithms/CollectiveOps.hpp"
#include "cli/CalibrateSteps.hpp"
#include "cli/CollectiveSweep.hpp"
#include "cli/Command.hpp"
#include "cli/NcclTestsText.hpp"
#include "cli/Options.hpp"
#include "cli/OutputFile.hpp"
#include "cli/Refit.hpp"
#include "cli/Table.hpp"
#include "sim/io/JsonInput.hpp"

#include <fmt/format.h>

#include <cmath>
#include <iostream>

namespace ccsim::cli {

namespace {

struct Fit {
  double gbps       = 0; // delivered per NIC, in the topology's own unit (its bits_per_megabit)
  double latency_us = 0;
  std::vector<double> predicted_s;
};

/// `topo` with the NIC delivering `gbps` (raising the nominal rate with it when the fit exceeds it) and `latency_us`.
sim::Topology with_nic(sim::Topology topo, double gbps, double latency_us)
{
  topo.nic_bytes_per_s  = gbps * topo.bytes_per_s_per_gbps();
  topo.nic_nominal_bytes_per_s = std::max(topo.nic_nominal_bytes_per_s, topo.nic_bytes_per_s);
  topo.nic_latency_s    = latency_us * 1e-6;
  return topo;
}

Fit fit_nic(const sim::Topology& topo, const algorithms::CollectiveBench& bench, int ranks,
            const std::vector<std::uint64_t>& sizes, const std::vector<double>& measured_s, sim::Fidelity fidelity)
{
  double u = topo.bytes_per_s_per_gbps() / topo.nic_bytes_per_s; // 1 / Gbps: the simulated time is affine in it
  double a          = topo.nic_latency_s * 1e6;
  auto times = [&](double u_, double a_) {
    return simulate_sweep(with_nic(topo, 1 / u_, a_), bench, ranks, sizes, fidelity, false).seconds;
  };
  auto residuals = [&](const std::vector<double>& t) {
    std::vector<double> r(t.size());
    for (std::size_t i = 0; i < t.size(); ++i)
      r[i] = (t[i] - measured_s[i]) / measured_s[i];
    return r;
  };
  std::vector<double> t = times(u, a);
  for (int iteration = 0; iteration < 8; ++iteration) {
    const double du = 0.01 * u, da = std::max(0.01 * a, 0.01);
    const auto tu = times(u + du, a), ta = times(u, a + da);
    const auto r  = residuals(t);
    // Normal equations of the 2-parameter linearised least squares on relative errors.
    double juu = 0, jua = 0, jaa = 0, gu = 0, ga = 0;
    for (std::size_t i = 0; i < r.size(); ++i) {
      const double ju = (tu[i] - t[i]) / du / measured_s[i], ja = (ta[i] - t[i]) / da / measured_s[i];
      juu += ju * ju;
      jua += ju * ja;
      jaa += ja * ja;
      gu += ju * r[i];
      ga += ja * r[i];
    }
    const double det = juu * jaa - jua * jua;
    if (!(det > 1e-12 * juu * jaa) || !(juu > 0) || !(jaa > 0))
      throw io::InputError("--nccl-tests", "",
                           "these measurements do not pin down both the NIC bandwidth and latency (one of them, or "
                           "the inter-node NIC itself, does not change the simulated times): give sizes from a few KB "
                           "to hundreds of MB over ranks on several nodes");
    double step_u = -(jaa * gu - jua * ga) / det, step_a = -(juu * ga - jua * gu) / det;
    // Stay physical: a latency below 0 is clamped, a bandwidth step is halved until 1/u stays positive.
    while (u + step_u <= 0)
      step_u /= 2;
    const double next_a = std::max(0.0, a + step_a);
    const bool settled  = std::abs(step_u) < 1e-9 * u && std::abs(next_a - a) < 1e-9 * std::max(a, 1e-3);
    u = u + step_u;
    a = next_a;
    t = times(u, a);
    if (settled)
      break;
  }
  io::check_range(1 / u, io::range::kLinkGbps, false, "fitted nic.effective_gbps");
  io::check_range(a, io::range::kLatencyUs, false, "fitted nic.latency_us");
  return {1 / u, a, t};
}

} // namespace

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
  if (format == "json") {
    nlohmann::json fitted = nlohmann::json::array();
    for (std::size_t c = 0; c < r.constants.size(); ++c)
      fitted.push_back({{"pointer", r.constants[c]}, {"before", r.before[c]}, {"after", r.after[c]}});
    std::cout << io::dump_json({{"topology", out}, {"constants", fitted}, {"rms_log_error", r.rms_log_error},
                                {"rows", r.rows}},
                               2)
              << "\n";
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
  t.print(std::cout);
  return 0;
}

int cmd_calibrate(const std::vector<std::string>& args)
{
  po::options_description desc("ccsim calibrate options");
  desc.add_options()("help,h", "show this help and exit")(
      "format", po::value<std::string>()->default_value("table"), "output: table (for people) or json (one document)")(
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
  po::variables_map vm;
  if (!parse_options("calibrate", args, desc, vm))
    return 0;
  const std::string format = choice_flag(vm, "format", {"table", "json"});
  const auto fidelity = choice_flag(vm, "fidelity", {"exact", "fast"}) == "exact" ? sim::Fidelity::EXACT
                                                                                   : sim::Fidelity::FAST;
  const std::string topo_path = io::resolve_preset("topologies", vm["topology"].as<std::string>(), "--topology");
  const sim::Topology topo    = sim::load_topology(topo_path);
  if (vm.count("nccl-tests") == vm.count("steps"))
    throw io::InputError("--nccl-tests", "",
                         "give --nccl-tests FILE (NIC bandwidth and latency from a collective) or --steps FILE (any "
                         "constants from step times); for both, run calibrate twice, the second from the first's --out");
  if (vm.count("fit") && !vm.count("steps"))
    throw io::InputError("--fit", "", "chooses the constants of --steps; --nccl-tests always fits the NIC rate and latency");
  if (vm.count("steps"))
    return calibrate_steps_command(vm, topo_path, format);
  const std::string file      = vm["nccl-tests"].as<std::string>();
  const auto table            = read_nccl_tests(file);

  const std::string op = vm.count("op") ? vm["op"].as<std::string>() : table.op.value_or("");
  if (op.empty())
    throw io::InputError(file, "", "does not name its collective: pass --op (all_reduce, all_gather, ...)");
  const auto* bench = algorithms::find_collective_bench(op);
  if (bench == nullptr)
    throw io::InputError(vm.count("op") ? "--op" : file, "", io::echo(op) + " is not a collective ccsim knows");
  const auto ranks_flag = integer_flag(vm, "ranks", io::Range{2, io::range::kGpus.hi});
  const int ranks       = ranks_flag ? static_cast<int>(*ranks_flag) : table.ranks.value_or(0);
  if (ranks == 0)
    throw io::InputError(file, "", "does not say how many ranks ran: pass --ranks N");
  if (ranks > topo.max_gpus())
    throw io::InputError(vm.count("ranks") ? "--ranks" : file, "",
                         fmt::format("{} ranks but topology {} has {} GPUs", ranks, topo.name, topo.max_gpus()));

  std::vector<std::uint64_t> sizes;
  std::vector<double> measured;
  for (const auto& r : table.rows) {
    sizes.push_back(r.bytes);
    measured.push_back(r.time_us * 1e-6);
  }
  if (sizes.size() < 2)
    throw io::InputError(file, "", "needs at least two sizes (one latency-bound, one bandwidth-bound)");
  const Fit fit = fit_nic(topo, *bench, ranks, sizes, measured, fidelity);

  double worst = 0, sum_sq = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const double e = (fit.predicted_s[i] - measured[i]) / measured[i];
    worst          = std::max(worst, std::abs(e));
    sum_sq += e * e;
  }
  const double rms = std::sqrt(sum_sq / static_cast<double>(sizes.size()));

  // The new topology: the base file with the two NIC constants replaced and a note saying where they came from.
  auto doc    = io::read_json_file(topo_path);
  auto& nic   = doc["nic"];
  const double nominal = nic["bandwidth_gbps"].get<double>();
  nic["effective_gbps"] = fit.gbps;
  if (fit.gbps > nominal)
    nic["bandwidth_gbps"] = fit.gbps; // the measurement beats the label: the label was wrong
  nic["latency_us"]         = fit.latency_us;
  nic["source_calibration"] = fmt::format(
      "ccsim calibrate: effective_gbps and latency_us fitted to {} ({} over {} ranks, {} sizes {}..{} B, {} fidelity "
      "replay): rms relative error {:.3g}, worst {:.3g}",
      io::printable(file, 200), bench->name, ranks, sizes.size(), sizes.front(), sizes.back(),
      fidelity == sim::Fidelity::EXACT ? "exact" : "fast", rms, worst);
  const std::string out = vm["out"].as<std::string>();
  write_output_file(out, io::dump_json(doc, 2) + "\n", "--out");
  (void)sim::load_topology(out); // what was written must load as every topology does

  if (format == "json") {
    nlohmann::json rows = nlohmann::json::array();
    for (std::size_t i = 0; i < sizes.size(); ++i)
      rows.push_back({{"size", sizes[i]}, {"measured_us", measured[i] * 1e6}, {"fitted_us", fit.predicted_s[i] * 1e6}});
    std::cout << io::dump_json({{"topology", out},
                                {"op", bench->name},
                                {"ranks", ranks},
                                {"effective_gbps", fit.gbps},
                                {"latency_us", fit.latency_us},
                                {"rms_relative_error", rms},
                                {"worst_relative_error", worst},
                                {"rows", rows}},
                               2)
              << "\n";
    return 0;
  }
  std::cout << fmt::format("{}: {} over {} ranks, {} sizes -> nic.effective_gbps {:.6g}, nic.latency_us {:.6g} "
                           "(rms relative error {:.3g}, worst {:.3g}); written to {}\n",
                           io::printable(file, 200), bench->name, ranks, sizes.size(), fit.gbps, fit.latency_us, rms,
                           worst, io::printable(out, 200));
  Table t({"size (B)", "measured (us)", "fitted (us)", "error (%)"});
  for (std::size_t i = 0; i < sizes.size(); ++i)
    t.add_row({std::to_string(sizes[i]), format_number(measured[i] * 1e6), format_number(fit.predicted_s[i] * 1e6),
               format_number(100 * (fit.predicted_s[i] - measured[i]) / measured[i], 3)});
  t.print(std::cout);
  return 0;
}

} // namespace ccsim::cli
