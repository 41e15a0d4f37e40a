// `ccsim advise`: simulate every algorithm that fits the cluster and model, and rank them by time-to-accuracy: the
// steps each needs to reach its family's uncompressed target loss (relative to that baseline, measured on the proxy
// models: workloads/evidence/convergence.json) times its simulated time per step (warm-up phases included at their
// share). Algorithms that do not reach the target are listed last with the reason, never above one that does.
#include "algorithms/PlanAlgorithm.hpp"
#include "cli/Command.hpp"
#include "cli/ConvergenceEvidence.hpp"
#include "cli/Options.hpp"
#include "cli/PlotOutput.hpp"
#include "cli/OutputFile.hpp"
#include "cli/Progress.hpp"
#include "cli/ShapeFlags.hpp"
#include "cli/ShapeSearch.hpp"
#include "cli/Spawn.hpp"
#include "cli/Simulation.hpp"
#include "cli/Table.hpp"
#include "sim/Topology.hpp"
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
    ("verify", "first rerun every training run of the evidence file and check it reproduces (about a minute)")
    ("search", "for each algorithm, simulate every dp/tp/pp split and micro-batch that fits the GPUs' memory at the "
               "same global batch, and rank each at its fastest (tp within a node, whole layers per stage)")
    ("plot", po::value<std::string>()->value_name("DIR"), "draw the time-to-accuracy ranking beside the throughput-only one into DIR (PNG + SVG, with advise.json)");
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

  // Which family fits: the pipeline algorithms (AQ-SGD's) serve workloads pipelined without tensor parallelism, as
  // in AQ-SGD's runs (gpt2-xl, deberta-v2-xxl); a Megatron model split tp x pp (gpt-13b: 4 x 2, SDP4Bit §5) is offered
  // the data-parallel and sharded families, which pipeline its stages themselves.
  const bool pipelined = work.pp > 1 && work.tp == 1;
  std::vector<std::string> names;
  for (const auto* a : algorithms::plan_algorithms()) {
    const bool pipe = a->parallelism() == algorithms::Parallelism::PIPELINE;
    if (pipe == pipelined)
      names.push_back(a->name());
  }
  const std::string baseline = pipelined ? "fp32-pipeline" : (work.family == "gpt" ? "megatron-dp" : "adam");

  // Every (algorithm, split) to simulate: the given split, or with --search every candidate of cli/ShapeSearch.
  const bool search = vm.count("search") != 0;
  if (search && shape.micro_batch)
    throw io::InputError("--micro-batch", "", "--search chooses the micro-batch: give one or the other");
  std::vector<std::pair<std::string, SimulateRequest>> todo;
  std::map<std::string, std::size_t> candidates; // per algorithm
  const auto topo = search ? sim::load_topology(io::resolve_preset("topologies", vm["topology"].as<std::string>(),
                                                                   "--topology"))
                           : sim::Topology{};
  // The search compares splits at one global batch: the flag's, the workload's, or what its run rule gives the
  // workload's default split (a batch that grows with dp would otherwise change with the split, and with it the
  // convergence the evidence measured).
  std::uint64_t search_batch = shape.global_batch.value_or(work.global_batch);
  if (search && search_batch == 0 && work.grad_accumulation > 0)
    search_batch = static_cast<std::uint64_t>(std::max(1, shape.gpus / std::max(1, work.tp * work.pp))) *
                   work.micro_batch * static_cast<std::uint64_t>(work.grad_accumulation);
  for (const auto& name : names) {
    SimulateRequest req = shape;
    if (search && search_batch > 0)
      req.global_batch = search_batch;
    req.topology        = vm["topology"].as<std::string>();
    req.workload        = vm["workload"].as<std::string>();
    req.algorithm       = name;
    if (!search) {
      todo.emplace_back(name, req);
      continue;
    }
    const bool pipe = algorithms::find_plan_algorithm(name)->parallelism() == algorithms::Parallelism::PIPELINE;
    for (const auto& c : search_candidates(topo, work, shape.gpus, search_batch, pipe)) {
      req.tp = c.tp, req.pp = c.pp, req.micro_batch = c.micro_batch;
      todo.emplace_back(name, req);
      ++candidates[name];
    }
  }
  // Without --search a bad configuration shows up on the baseline first, as the one-line error the user needs.
  if (!search)
    std::stable_partition(todo.begin(), todo.end(), [&](const auto& t) { return t.first == baseline; });

  std::map<std::string, nlohmann::json> best;            // algorithm -> its fastest simulate document
  std::map<std::string, std::string> why_not;            // algorithm -> why no split of it could run
  std::map<std::string, std::size_t> fit;                // algorithm -> splits that ran
  std::vector<IsolatedRun> running;
  std::vector<std::string> running_names;
  Progress line("ccsim advise", progress);
  std::size_t simulated = 0;
  // The fastest split, preferring one that fits without activation recomputation: ccsim's compute times come from
  // the papers' runs (profiles, fitted FLOP/s) and do not price a recomputed forward pass, so a split that needs one
  // is chosen only when no split of the algorithm fits without it.
  auto recomputes = [](const nlohmann::json& doc) { return doc["memory"]["activation_recomputation"].get<bool>(); };
  auto keep       = [&](const std::string& name, nlohmann::json doc) {
    ++fit[name];
    const auto it = best.find(name);
    if (it == best.end() || recomputes(doc) < recomputes(it->second) ||
        (recomputes(doc) == recomputes(it->second) &&
         doc["samples_per_s"].get<double>() > it->second["samples_per_s"].get<double>()))
      best[name] = std::move(doc);
  };
  auto collect = [&](std::size_t i) {
    try {
      keep(running_names[i], finish_isolated(running[i]));
    } catch (const io::InputError& e) {
      // This algorithm cannot run this split (it does not fit the GPUs' memory, the batch does not divide): listed
      // last with the reason when no split of it can.
      why_not[running_names[i]] = e.problem();
    }
    running.erase(running.begin() + static_cast<long>(i));
    running_names.erase(running_names.begin() + static_cast<long>(i));
    line.update(work.name, static_cast<double>(++simulated), static_cast<double>(todo.size()),
                search ? "splits" : "algorithms");
  };
  for (const auto& [name, req] : todo) {
    if (!search && name == baseline) {
      keep(name, run_simulation_isolated(req));
      line.update(work.name, static_cast<double>(++simulated), static_cast<double>(todo.size()), "algorithms");
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

  std::vector<nlohmann::json> results;
  std::vector<nlohmann::json> cannot_run;
  for (const auto& name : names) {
    if (best.count(name)) {
      auto doc         = best[name];
      doc["algorithm"] = name;
      results.push_back(doc);
    } else if (search && candidates[name] == 0) {
      cannot_run.push_back({{"algorithm", name},
                            {"reason", fmt::format("no split of {} GPUs suits {} (tp within a node dividing the heads, "
                                                   "whole layers per stage, the batch divisible)",
                                                   shape.gpus, work.name)}});
    } else {
      cannot_run.push_back({{"algorithm", name},
                            {"reason", search ? fmt::format("none of its {} splits runs; e.g. {}", candidates[name],
                                                            why_not[name])
                                              : why_not[name]}});
    }
  }
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
                          {"split",
                           {{"dp", r["config"]["dp"]},
                            {"tp", r["config"]["tp"]},
                            {"pp", r["config"]["pp"]},
                            {"micro_batch", r["config"]["micro_batch"]},
                            {"grad_accumulation", r["config"]["grad_accumulation"]},
                            {"activation_recomputation", r["memory"]["activation_recomputation"]}}},
                          {"converges", nullptr},
                          {"time_to_accuracy_h", nullptr}};
    if (search) {
      const auto name    = r["algorithm"].get<std::string>();
      row["search"]      = {{"splits_tried", candidates[name]}, {"splits_that_run", fit[name]}};
    }
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
  // The ranking by throughput alone, beside it: what `advise` answered before convergence was weighed.
  {
    std::vector<std::size_t> order(ranking.size());
    for (std::size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return ranking[a]["samples_per_s"].get<double>() > ranking[b]["samples_per_s"].get<double>();
    });
    for (std::size_t i = 0; i < order.size(); ++i)
      ranking[order[i]]["throughput_rank"] = i + 1;
  }
  const nlohmann::json doc = {
      {"title", fmt::format("{} on {} x {} GPUs{}", work.name, vm["topology"].as<std::string>(), shape.gpus,
                            search ? ", each algorithm at its fastest split" : "")},
      {"baseline", baseline},
      {"epoch_samples", epoch},
      {"evidence_file", evidence_path},
      {"search", search},
      {"ranking", ranking},
      {"cannot_run", cannot_run}};
  if (vm.count("plot") != 0)
    plot_into(vm["plot"].as<std::string>(), "advise.json", doc, "advise_ranking.py", "advise", "the ranking figure");
  if (format == Format::JSON) {
    std::cout << io::dump_json(doc, 2) << "\n";
    return 0;
  }
  std::cout << fmt::format("{} on {} x {} GPUs, ranked by time-to-accuracy (the uncompressed baseline of each family "
                           "reaches its target loss in {:.3g} samples; steps ratios measured on proxy models: {}); "
                           "speedup over {}{}\n",
                           work.name, vm["topology"].as<std::string>(), shape.gpus, epoch, evidence_path, baseline,
                           search ? ", each algorithm at its fastest split that fits" : "");
  Table t({"rank", "algorithm", "converges", "to accuracy (h)", "epoch (h)", "samples/s", "by samples/s", "speedup (x)",
           "dp x tp x pp, micro-batch", "memory (GB/GPU)", "inter-node per step (MB/GPU)", "why not"});
  int rank = 1;
  for (const auto& r : ranking) {
    const bool known = !r["converges"].is_null();
    t.add_row({std::to_string(rank++), r["algorithm"].get<std::string>(),
               known ? (r["converges"].get<bool>() ? "yes" : "no") : "no evidence",
               r["time_to_accuracy_h"].is_null() ? "-" : format_number(r["time_to_accuracy_h"].get<double>()),
               format_number(r["epoch_time_s"].get<double>() / 3600), format_number(r["samples_per_s"].get<double>()),
               std::to_string(r["throughput_rank"].get<int>()), format_number(r["speedup"].get<double>(), 3),
               fmt::format("{} x {} x {}, {}{}", r["split"]["dp"].get<int>(), r["split"]["tp"].get<int>(),
                           r["split"]["pp"].get<int>(), r["split"]["micro_batch"].get<int>(),
                           r["split"]["activation_recomputation"].get<bool>() ? " (recompute)" : ""), format_number(r["memory_gb_per_gpu"].get<double>(), 3),
               format_number(r["inter_node_bytes_per_gpu"].get<double>() / 1e6),
               known && !r["converges"].get<bool>() ? r["evidence"]["reason"].get<std::string>() : ""});
  }
  for (const auto& c : cannot_run)
    t.add_row({"-", c["algorithm"].get<std::string>(), "", "", "", "", "", "", "", "", "", "cannot run: " + c["reason"].get<std::string>()});
  t.print(std::cout);
  return 0;
}

} // namespace ccsim::cli
