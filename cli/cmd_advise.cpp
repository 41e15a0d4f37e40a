// `ccsim advise`: simulate every algorithm that fits the cluster and model, and rank them by time-to-accuracy: the
// steps each needs to reach its family's uncompressed target loss (relative to that baseline, measured on the proxy
// models: workloads/evidence/convergence.json) times its simulated time per step (warm-up phases included at their
// share). Algorithms that do not reach the target are listed last with the reason, never above one that does.
#include "algorithms/PlanAlgorithm.hpp"
#include "cli/Command.hpp"
#include "api/advise/ConvergenceEvidence.hpp"
#include "cli/Options.hpp"
#include "api/output/PlotOutput.hpp"
#include "api/output/OutputFile.hpp"
#include "cli/Progress.hpp"
#include "api/advise/Advisor.hpp"
#include "cli/ShapeFlags.hpp"
#include "api/advise/ShapeSearch.hpp"
#include "api/process/Spawn.hpp"
#include "api/run/Simulation.hpp"
#include "api/output/Table.hpp"
#include "sim/platform/Topology.hpp"
#include "sim/model/Workload.hpp"
#include "io/JsonInput.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

namespace ccsim::cli {

namespace {
/// A comma-separated list of names ("adam,onebit-adam"); an empty item is an error on `flag`.
std::vector<std::string> split_names(const std::string& text, const std::string& flag)
{
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const auto comma = text.find(',', start);
    out.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (out.back().empty())
      throw io::InputError(flag, "", io::echo(text) + " has an empty item (give names separated by commas)");
    if (comma == std::string::npos)
      return out;
    start = comma + 1;
  }
}
} // namespace

int cmd_advise(const std::vector<std::string>& args)
{
  po::options_description desc("ccsim advise options");
  add_common_options(desc);
  desc.add_options()
    ("topology", po::value<std::string>()->required(), "topology preset or JSON file")
    ("workload", po::value<std::string>()->required(), "workload preset or JSON file")
    ("bandwidth-gbps", po::value<std::string>()->value_name("X"), "override the inter-node bandwidth per node (Gbit/s)")
    ("epoch-samples", po::value<std::string>()->default_value("1e6"), "samples in one epoch (time per epoch = samples / throughput; the default 1e6 is a round number, not the workload's dataset)")
    ("jobs", po::value<std::string>()->default_value("2"), "simulations at once")
    ("evidence", po::value<std::string>(), "convergence evidence JSON (default: workloads/evidence/convergence.json)")
    ("verify", "first rerun seed 1 of every comparison of the evidence file for 20 % of its steps and check each "
               "held-out loss reproduces to the digit (about 4 minutes on 2 cores)")
    ("search", "for each algorithm, simulate every dp/tp/pp split and micro-batch that fits the GPUs' memory at the "
               "same global batch, and rank each at its fastest (tp within a node, whole layers per stage); splits that "
               "cannot fit the GPUs' memory or whose compute alone is slower than the best simulated split are pruned")
    ("no-prune", "with --search, simulate every split that fits (no pruning by the compute bound)")
    ("tp", po::value<std::string>()->value_name("LIST"), "only these tensor-parallel degrees, e.g. 4,8 (several need --search)")
    ("pp", po::value<std::string>()->value_name("LIST"), "only these pipeline depths, e.g. 2,4 (several need --search)")
    ("algorithms", po::value<std::string>()->value_name("LIST"), "only these algorithms, e.g. adam,onebit-adam")
    ("plot", po::value<std::string>()->value_name("DIR"), "draw the time-to-accuracy ranking beside the throughput-only one into DIR (PNG + SVG, with advise.json)");
  add_shape_options(desc, /*parallelism=*/false);
  add_long_run_options(desc, /*time_limit=*/false);
  desc.add_options()("time-limit", po::value<std::string>()->value_name("SECONDS"),
                     "stop evaluating after this many seconds (counted from the start) and rank the best of what "
                     "finished, saying the answer is partial (exit 0)");
  po::variables_map vm;
  if (!parse_options("advise", args, desc, vm))
    return 0;
  const Format format = output_format(vm);
  const bool progress = read_long_run_options(vm);
  const double epoch  = *number_flag(vm, "epoch-samples", io::range::kEpochSamples);
  const auto jobs     = static_cast<std::size_t>(*integer_flag(vm, "jobs", io::range::kJobs));
  const std::string evidence_path = vm.count("evidence") ? vm["evidence"].as<std::string>() : default_evidence_path();
  (void)load_convergence_evidence(evidence_path); // its own one-line errors before --verify's minutes of training
  if (vm.count("verify")) {
    // The script reruns each row's `ccsim train` command with this binary; an argument vector, no shell.
    const auto script = std::filesystem::path(io::data_dir()) / "scripts" / "convergence-evidence.sh";
    const auto self   = std::filesystem::read_symlink("/proc/self/exe").string();
    if (run_program({"bash", script.string(), "--check", "--ccsim", self, "--out", evidence_path}) != 0) {
      std::cerr << "ccsim advise: --verify: " << io::echo(evidence_path) << " is not reproduced by its commands\n";
      return 1;
    }
  }
  AdviseRequest req;
  req.topology = vm["topology"].as<std::string>();
  req.workload = vm["workload"].as<std::string>();
  // --tp / --pp are lists here (filters of the search), not the one degree read_shape_flags reads.
  for (const auto& [flag, into] : {std::pair{"tp", &req.tp}, std::pair{"pp", &req.pp}})
    if (vm.count(flag) != 0) {
      for (const auto v : integer_list_flag(vm, flag, io::range::kParallelDegree, 1024))
        into->push_back(static_cast<int>(v));
      vm.erase(flag);
    }
  read_shape_flags(vm, req.shape);
  req.shape.bandwidth_gbps = number_flag(vm, "bandwidth-gbps", io::range::kLinkGbps);
  req.epoch_samples        = epoch;
  req.jobs                 = static_cast<int>(jobs);
  req.evidence_file        = evidence_path;
  req.search               = vm.count("search") != 0;
  req.prune                = vm.count("no-prune") == 0;
  if (!req.search && !req.prune)
    throw io::InputError("--no-prune", "", "only --search prunes: give --search too");
  if (vm.count("algorithms") != 0)
    req.algorithms = split_names(vm["algorithms"].as<std::string>(), "--algorithms");
  Progress line("ccsim advise", progress);
  req.on_progress = [&](const std::string& what, std::size_t done, std::size_t total, const std::string& unit) {
    line.update(what, static_cast<double>(done), static_cast<double>(total), unit);
  };
  const AdviseReport report = advise(req);
  line.finish();
  if (vm.count("plot") != 0)
    plot_into(vm["plot"].as<std::string>(), "advise.json", to_json(report), "advise_ranking.py", "advise",
              "the ranking figure");
  const nlohmann::json doc = to_json(report);
  if (print_json_or_csv(format, doc, doc["ranking"].get<std::vector<nlohmann::json>>())) // CSV: a row per algorithm
    return 0;
  const bool search = report.search;
  std::cout << wrap_text(fmt::format("{} on {} x {} GPUs, ranked by time-to-accuracy (the uncompressed baseline of each "
                                     "family reaches its target loss in {:.3g} samples; steps ratios measured on proxy "
                                     "models: {}); speedup over {}{}",
                                     report.workload, req.topology.name, req.shape.gpus, epoch, evidence_path,
                                     report.baseline, search ? ", each algorithm at its fastest split that fits" : ""),
                         table_width())
            << "\n";
  // Narrow (the default): the columns a choice needs, the verdict's numbers in short; --wide: every column.
  const bool wide = table_width() == 0;
  Table t = wide ? Table({"rank", "algorithm", "converges", "to accuracy (h)", "epoch (h)", "samples/s (likely range)",
                          "by samples/s", "speedup (x)", "dp x tp x pp, micro-batch", "memory (GB/GPU)",
                          "inter-node per step (MB/GPU)", "why not"})
                 : Table({"rank", "algorithm", "converges", "to accuracy (h)", "samples/s", "likely range",
                          "speedup (x)", "dp x tp x pp, micro", "memory (GB)", "gap to baseline [90 % interval]"});
  int rank = 1;
  for (const auto& r : report.ranking) {
    const bool known = r.converges.has_value();
    const std::string verdict = known ? to_string(*r.converges) : "no evidence";
    const std::string accuracy = r.time_to_accuracy_h ? format_number(*r.time_to_accuracy_h) : "-";
    const std::string split    = fmt::format("{} x {} x {}, {}{}", r.dp, r.tp, r.pp, r.micro_batch,
                                             r.activation_recomputation ? " (recompute)" : "");
    if (!wide) {
      t.add_row({std::to_string(rank++), r.algorithm, verdict, accuracy, format_number(r.samples_per_s),
                 fmt::format("{}-{}", format_number(r.samples_per_s_range.low, 3),
                             format_number(r.samples_per_s_range.high, 3)),
                 format_number(r.speedup, 3), split, format_number(r.memory_gb_per_gpu, 3),
                 fmt::format("{}", fmt::join(r.evidence_short, "; "))});
      continue;
    }
    // The verdict with the numbers behind it: each evidence row's mean gap and its 90 % interval over the seeds.
    t.add_row({std::to_string(rank++), r.algorithm,
               known ? fmt::format("{} ({})", verdict, fmt::join(r.evidence, "; ")) : verdict, accuracy,
               format_number(r.epoch_time_s / 3600),
               fmt::format("{} ({}-{})", format_number(r.samples_per_s), format_number(r.samples_per_s_range.low, 3),
                           format_number(r.samples_per_s_range.high, 3)),
               std::to_string(r.throughput_rank), format_number(r.speedup, 3), split,
               format_number(r.memory_gb_per_gpu, 3), format_number(r.inter_node_bytes_per_gpu / 1e6),
               known && *r.converges != Converges::YES ? r.reason : ""});
  }
  for (const auto& c : report.cannot_run) {
    std::vector<std::string> cells(wide ? 12 : 10, "");
    cells[0] = "-", cells[1] = c.algorithm, cells.back() = "cannot run: " + c.reason;
    t.add_row(cells);
  }
  t.print(std::cout, table_width());
  if (!wide)
    std::cout << wrap_text("gap to baseline: final held-out loss over the family baseline's on the same seed, mean "
                           "over the seeds [its 90 % confidence interval] per proxy; converges is yes when the interval "
                           "lies within the claim's threshold, no when above it (workloads/evidence/convergence.json); "
                           "--wide adds the epoch time, the "
                           "rank by throughput alone, inter-node bytes and why not; --format json or csv has every "
                           "field",
                           table_width())
              << "\n";
  const auto& c = report.counts;
  if (search)
    std::cout << wrap_text(fmt::format("Searched {} (algorithm, split) candidates: {} simulated, {} pruned by memory (do "
                                       "not fit the GPUs even with activation recomputation), {} pruned by bound "
                                       "(their compute, or their busiest NIC's bytes at line rate, alone is slower than the algorithm's best simulated "
                                       "split), {} invalid{}.",
                                       c.candidates, c.simulated, c.pruned_by_memory, c.pruned_by_bound, c.invalid,
                                       c.left ? fmt::format(", {} left", c.left) : ""),
                           table_width())
              << "\n";
  if (report.partial)
    std::cout << wrap_text(fmt::format("Partial answer: the time limit came after {:.1f} s; {} of {} {} evaluated, {} "
                                       "left. The ranking is the best of those evaluated.",
                                       report.seconds, c.candidates - c.left, c.candidates,
                                       search ? "candidates" : "algorithms", c.left),
                           table_width())
              << "\n";
  return 0;
}

} // namespace ccsim::cli
