// `ccsim advise`: simulate every algorithm that fits the cluster and model, and rank them by time-to-accuracy: the
// steps each needs to reach its family's uncompressed target loss (relative to that baseline, measured on the proxy
// models: workloads/evidence/convergence.json) times its simulated time per step (warm-up phases included at their
// share). Algorithms that do not reach the target are listed last with the reason, never above one that does.
#include "algorithms/PlanAlgorithm.hpp"
#include "cli/Command.hpp"
#include "cli/ConvergenceEvidence.hpp"
#include "cli/Options.hpp"
#include "cli/Progress.hpp"
#include "cli/ShapeFlags.hpp"
#include "cli/Spawn.hpp"
#include "cli/Simulation.hpp"
#include "cli/Table.hpp"
#include "sim/Workload.hpp"
#include "sim/io/JsonInput.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

namespace ccsim::cli {

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
    ("verify", "first rerun every training run of the evidence file and check it reproduces (about a minute)");
  add_shape_options(desc, /*parallelism=*/false);
  add_long_run_options(desc, /*time_limit=*/false);
  po::variables_map vm;
  if (!parse_options("advise", args, desc, vm))
    return 0;
  const Format format = output_format(vm);
  const bool progress = read_long_run_options(vm);
  const auto work     = sim::load_workload(io::resolve_preset("workloads", vm["workload"].as<std::string>(), "--workload"));
  const double epoch  = *number_flag(vm, "epoch-samples", io::range::kEpochSamples);
  const auto jobs     = static_cast<std::size_t>(*integer_flag(vm, "jobs", io::range::kJobs));
  const std::string evidence_path = vm.count("evidence") ? vm["evidence"].as<std::string>() : default_evidence_path();
  const auto evidence             = load_convergence_evidence(evidence_path);
  if (vm.count("verify")) {
    // The script reruns each row's `ccsim train` command with this binary; an argument vector, no shell.
    const auto script = std::filesystem::path(io::data_dir()) / "scripts" / "convergence-evidence.sh";
    const auto self   = std::filesystem::read_symlink("/proc/self/exe").string();
    if (run_program({"bash", script.string(), "--check", "--ccsim", self, "--out", evidence_path}) != 0) {
      std::cerr << "ccsim advise: --verify: " << io::echo(evidence_path) << " is not reproduced by its commands\n";
      return 1;
    }
  }
  SimulateRequest shape;
  read_shape_flags(vm, shape);
  shape.bandwidth_gbps = number_flag(vm, "bandwidth-gbps", io::range::kLinkGbps);

  // Which family fits: pipeline algorithms need a pipelined workload, the others need none.
  const bool pipelined = work.pp > 1;
  std::vector<std::string> names;
  for (const auto* a : algorithms::plan_algorithms()) {
    const bool pipe = a->parallelism() == algorithms::Parallelism::PIPELINE;
    if (pipe == pipelined)
      names.push_back(a->name());
  }
  const std::string baseline = pipelined ? "fp32-pipeline" : (work.family == "gpt" ? "megatron-dp" : "adam");

  std::vector<nlohmann::json> results;
  std::vector<nlohmann::json> cannot_run;
  std::vector<IsolatedRun> running;
  std::vector<std::string> running_names;
  Progress line("ccsim advise", progress);
  std::size_t simulated = 0;
  auto collect          = [&](std::size_t i) {
    try {
      auto doc         = finish_isolated(running[i]);
      doc["algorithm"] = running_names[i];
      results.push_back(doc);
    } catch (const io::InputError& e) {
      // This algorithm cannot run this configuration (it does not fit the GPUs' memory, the batch does not divide):
      // listed last with the reason.
      cannot_run.push_back({{"algorithm", running_names[i]}, {"reason", e.problem()}});
    }
    running.erase(running.begin() + static_cast<long>(i));
    running_names.erase(running_names.begin() + static_cast<long>(i));
    line.update(work.name, static_cast<double>(++simulated), static_cast<double>(names.size()), "algorithms");
  };
  for (const auto& name : names) {
    SimulateRequest req = shape;
    req.topology        = vm["topology"].as<std::string>();
    req.workload        = vm["workload"].as<std::string>();
    req.algorithm       = name;
    if (name == baseline) {
      // A bad configuration shows up on the baseline first, as the one-line error the user needs.
      auto doc         = run_simulation_isolated(req);
      doc["algorithm"] = name;
      results.push_back(doc);
      continue;
    }
    running.push_back(start_isolated(req));
    running_names.push_back(name);
    if (running.size() >= jobs)
      collect(0);
  }
  while (!running.empty())
    collect(0);
  line.finish();

  double base_rate = 0;
  for (const auto& r : results)
    if (r["algorithm"] == baseline)
      base_rate = r["samples_per_s"].get<double>();
  // Time-to-accuracy: the family's baseline reaches the target in one epoch of --epoch-samples; an algorithm needs
  // steps_ratio times as many steps, each at its own simulated rate.
  nlohmann::json ranking = nlohmann::json::array();
  for (const auto& r : results) {
    const double rate = r["samples_per_s"].get<double>();
    const auto* ev    = find_evidence(evidence, r["algorithm"].get<std::string>());
    nlohmann::json row = {{"algorithm", r["algorithm"]},
                          {"epoch_time_s", epoch / rate},
                          {"samples_per_s", rate},
                          {"speedup", base_rate > 0 ? rate / base_rate : 0},
                          {"inter_node_bytes_per_gpu", r["bytes_per_gpu"]["inter_node"]},
                          {"intra_node_bytes_per_gpu", r["bytes_per_gpu"]["intra_node"]},
                          {"phases", r["phases"].size()},
                          {"memory_gb_per_gpu", r["memory_gb_per_gpu"]},
                          {"fits_memory", r["memory"]["fits"]},
                          {"converges", nullptr},
                          {"time_to_accuracy_h", nullptr}};
    if (ev != nullptr) {
      row["converges"] = ev->converges;
      row["evidence"]  = {{"family", ev->family}, {"baseline", ev->baseline}, {"command", ev->command}};
      if (ev->steps_ratio) {
        row["steps_ratio"]        = *ev->steps_ratio;
        row["time_to_accuracy_h"] = *ev->steps_ratio * epoch / rate / 3600;
      } else {
        row["evidence"]["reason"] = ev->reason;
      }
    }
    ranking.push_back(row);
  }
  // Converging algorithms by time-to-accuracy, then those without evidence, then those that do not converge (each
  // of the last two groups by throughput).
  auto group = [](const nlohmann::json& r) { return r["converges"].is_null() ? 1 : r["converges"].get<bool>() ? 0 : 2; };
  std::stable_sort(ranking.begin(), ranking.end(), [&](const nlohmann::json& a, const nlohmann::json& b) {
    if (group(a) != group(b))
      return group(a) < group(b);
    if (group(a) == 0)
      return a["time_to_accuracy_h"].get<double>() < b["time_to_accuracy_h"].get<double>();
    return a["samples_per_s"].get<double>() > b["samples_per_s"].get<double>();
  });
  if (format == Format::JSON) {
    std::cout << io::dump_json({{"baseline", baseline}, {"epoch_samples", epoch}, {"evidence_file", evidence_path},
                                {"ranking", ranking}, {"cannot_run", cannot_run}},
                               2)
              << "\n";
    return 0;
  }
  std::cout << fmt::format("{} on {} x {} GPUs, ranked by time-to-accuracy (the uncompressed baseline of each family "
                           "reaches its target loss in {:.3g} samples; steps ratios measured on proxy models: {}); "
                           "speedup over {}\n",
                           work.name, vm["topology"].as<std::string>(), shape.gpus, epoch, evidence_path, baseline);
  Table t({"rank", "algorithm", "converges", "to accuracy (h)", "epoch (h)", "samples/s", "speedup (x)",
           "memory (GB/GPU)", "inter-node per step (MB/GPU)", "why not"});
  int rank = 1;
  for (const auto& r : ranking) {
    const bool known = !r["converges"].is_null();
    t.add_row({std::to_string(rank++), r["algorithm"].get<std::string>(),
               known ? (r["converges"].get<bool>() ? "yes" : "no") : "no evidence",
               r["time_to_accuracy_h"].is_null() ? "-" : format_number(r["time_to_accuracy_h"].get<double>()),
               format_number(r["epoch_time_s"].get<double>() / 3600), format_number(r["samples_per_s"].get<double>()),
               format_number(r["speedup"].get<double>(), 3), format_number(r["memory_gb_per_gpu"].get<double>(), 3),
               format_number(r["inter_node_bytes_per_gpu"].get<double>() / 1e6),
               known && !r["converges"].get<bool>() ? r["evidence"]["reason"].get<std::string>() : ""});
  }
  for (const auto& c : cannot_run)
    t.add_row({"-", c["algorithm"].get<std::string>(), "", "", "", "", "", "", "", "cannot run: " + c["reason"].get<std::string>()});
  t.print(std::cout);
  return 0;
}

} // namespace ccsim::cli
