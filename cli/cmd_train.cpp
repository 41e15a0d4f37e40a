// `ccsim train`: genuine convergence runs of proxy models with N in-process workers through the real
// compressors; with --topology/--gpus also loss against simulated cluster time (time-to-accuracy).
#include "algorithms/PlanAlgorithm.hpp"
#include "algorithms/TrainParams.hpp"
#include "algorithms/Training.hpp"
#include "cli/Command.hpp"
#include "cli/Options.hpp"
#include "cli/PlotOutput.hpp"
#include "cli/OutputFile.hpp"
#include "cli/PretrainCache.hpp"
#include "cli/Progress.hpp"
#include "cli/RunControl.hpp"
#include "cli/Simulation.hpp"
#include "cli/Spawn.hpp"
#include "cli/Table.hpp"
#include "numerics/cuda/CudaKernels.hpp"
#include "numerics/cuda/Device.hpp"
#include "sim/io/JsonInput.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <sstream>

namespace ccsim::cli {

namespace {
std::vector<std::string> split(const std::string& s)
{
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty())
      out.push_back(item);
  return out;
}

/// The --param help: every key, its range and the algorithms that read it, from algorithms/TrainParams.cpp.
std::string param_help()
{
  std::string text = "parameter key=value (repeatable):";
  for (const auto& s : algorithms::train_param_specs())
    text += fmt::format("\n  {} in {}: {}", s.key, algorithms::train_param_values(s), s.doc);
  return text;
}

/// The paper model each algorithm family is measured on: the workload whose simulated step time the time curve uses
/// unless --workload names one.
std::string paper_workload(const algorithms::PlanAlgorithm& algo)
{
  switch (algo.parallelism()) {
  case algorithms::Parallelism::PIPELINE: return "gpt2-xl";               // AQ-SGD Tables 2-3
  case algorithms::Parallelism::SHARDED_DATA_PARALLEL: return "gpt-1.3b"; // SDP4Bit Table 2
  default: return "bert-large"; // 1-bit Adam §7.1, 1-bit LAMB Table 5, SLAMB §5
  }
}

/// Seconds of each training step on the simulated cluster, by phase name (warm-up steps at their own time). The
/// training parameters the algorithm's plan also takes (pp, fw_bits, bw_bits, k, H...) travel with it, so the
/// simulated cluster runs what was trained.
nlohmann::json simulated_times(const po::variables_map& vm, const std::string& algorithm, const numerics::Hyper& hyper)
{
  const auto* algo = algorithms::find_plan_algorithm(algorithm);
  if (algo == nullptr)
    throw io::InputError("--algorithm", "", "'" + algorithm + "' has no communication plan to simulate");
  SimulateRequest req;
  req.topology  = vm["topology"].as<std::string>();
  req.workload  = vm.count("workload") != 0 ? vm["workload"].as<std::string>() : paper_workload(*algo);
  req.algorithm = algorithm;
  req.gpus      = static_cast<int>(*integer_flag(vm, "gpus", io::range::kGpus));
  const auto known = algorithms::default_params(*algo);
  for (const auto& [key, value] : hyper) {
    if (key == "pp" && algo->parallelism() == algorithms::Parallelism::PIPELINE)
      req.pp = static_cast<int>(value);
    else if (known.count(key) != 0)
      req.params[key] = fmt::format("{}", value);
  }
  if (algo->parallelism() == algorithms::Parallelism::PIPELINE && !req.pp)
    req.pp = algorithms::kDefaultPipelineStages;
  const auto doc = run_simulation_isolated(req);
  nlohmann::json by_phase = nlohmann::json::object();
  for (const auto& p : doc["phases"])
    by_phase[p["name"].get<std::string>()] = p["step_time_s"];
  return by_phase;
}
} // namespace

int cmd_train(const std::vector<std::string>& args)
{
  po::options_description desc("ccsim train options");
  add_common_options(desc);
  desc.add_options()
    ("algorithm", po::value<std::string>()->required(), "algorithm, or a comma-separated list to compare")
    ("model", po::value<std::string>()->default_value("mlp"), "proxy model: mlp or tiny-transformer")
    ("workers", po::value<std::string>()->default_value("16"), "in-process data-parallel workers")
    ("steps", po::value<std::string>()->default_value("1000"), "training steps (tiny-transformer: 200)")
    ("global-batch", po::value<std::string>()->default_value("512"), "samples per step over all workers (tiny-transformer: 64)")
    ("param", po::value<std::vector<std::string>>()->composing(), param_help().c_str())
    ("seed", po::value<std::string>()->default_value("1"), "seed (data, model and compressors)")
    ("backend", po::value<std::string>()->default_value("cpu"), "where the compressors' kernels run: cpu or cuda")
    ("topology", po::value<std::string>(), "with --gpus: also report loss against simulated time on this cluster")
    ("gpus", po::value<std::string>(), "GPUs of the simulated cluster")
    ("workload", po::value<std::string>(), "model whose step time the simulation uses (default: the algorithm's paper model, bert-large, gpt-1.3b or gpt2-xl)")
    ("plot", po::value<std::string>(), "write loss curves (PNG + SVG) into this folder")
    ("task", po::value<std::string>()->default_value("scratch"), fmt::format("scratch (train from the random initialisation) or finetune (tiny-transformer: start every algorithm from a model pre-trained with fp32 Adam on Debian's GPL-2 at lr {}, cached on disk, and fine-tune on GPL-3, as AQ-SGD's runs fine-tune; lr defaults to {} there)", kPretrainLr, kFinetuneLr).c_str())
    ("pretrain-steps", po::value<std::string>()->default_value("400"), "with --task finetune: pre-training steps (batch 64, 16 workers, the run's seed)")
    ("cache-dir", po::value<std::string>()->value_name("DIR"), "with --task finetune: where pre-trained models are kept (default $CCSIM_CACHE_DIR, else $XDG_CACHE_HOME/ccsim, else ~/.cache/ccsim)");
  add_long_run_options(desc, /*time_limit=*/true);
  po::variables_map vm;
  if (!parse_options("train", args, desc, vm))
    return 0;
  const Format format = output_format(vm);
  const bool progress = read_long_run_options(vm);
  const std::string backend = choice_flag(vm, "backend", {"cpu", "cuda"});
  if (backend == "cuda" && numerics::cuda::device_count() == 0)
    throw io::InputError("--backend", "", numerics::cuda::built_with_cuda() ? "cuda: no CUDA device found"
                                                                             : "cuda: ccsim was built without CUDA");
  // The compressors' kernels run where the backend says; everything else of the loop stays on the CPU.
  const numerics::CompressionKernels& kernels =
      backend == "cuda" ? numerics::cuda::cuda_kernels() : numerics::cpu_kernels();
  if ((vm.count("topology") != 0) != (vm.count("gpus") != 0))
    throw io::InputError(vm.count("topology") != 0 ? "--gpus" : "--topology", "", "--topology and --gpus go together");

  const auto algorithm_list = split(vm["algorithm"].as<std::string>());
  if (algorithm_list.empty())
    throw io::InputError("--algorithm", "", "names no algorithm (give one, or a comma-separated list)");
  // One --param set serves every algorithm of the list: a key must be read by at least one of them, and each
  // algorithm gets the keys its update reads (the baseline of a comparison shares eps, lr, ...).
  numerics::Hyper hyper;
  if (vm.count("param") != 0)
    for (const auto& [k, v] : parse_key_values(vm["param"].as<std::vector<std::string>>(), "--param")) {
      const auto* spec = algorithms::find_train_param(k);
      const bool used  = spec != nullptr && std::any_of(algorithm_list.begin(), algorithm_list.end(), [&](const auto& a) {
                          return algorithms::train_param_applies(*spec, a);
                        });
      if (!used)
        throw io::InputError("--param", "", fmt::format("{} is not read by {} (ccsim train --help lists the keys)",
                                                        io::echo(k), vm["algorithm"].as<std::string>()));
      hyper[k] = algorithms::parse_train_param(*spec, v);
    }
  const int workers = static_cast<int>(*integer_flag(vm, "workers", io::range::kWorkers));
  const int steps   = static_cast<int>(*integer_flag(vm, "steps", io::range::kSteps));
  const int batch   = static_cast<int>(*integer_flag(vm, "global-batch", io::range::kTrainBatch));
  const auto seed   = static_cast<std::uint64_t>(*integer_flag(vm, "seed", io::range::kSeed));

  // --task finetune: one pre-trained starting point for every algorithm of the list (cli/PretrainCache.hpp).
  const std::string task = choice_flag(vm, "task", {"scratch", "finetune"});
  if (task == "scratch" && (!vm["pretrain-steps"].defaulted() || vm.count("cache-dir") != 0))
    throw io::InputError(vm.count("cache-dir") != 0 ? "--cache-dir" : "--pretrain-steps", "", "goes with --task finetune");
  Pretrained pretrained;
  nlohmann::json task_doc = {{"name", task}};
  if (task == "finetune") {
    if (vm["model"].as<std::string>() != "tiny-transformer")
      throw io::InputError("--task", "", "finetune needs --model tiny-transformer (the mlp has no text to shift)");
    if (numerics::hyper_or(hyper, "pp", algorithms::kDefaultPipelineStages) > 4)
      throw io::InputError("--task", "", "finetune pre-trains the 2-layer transformer, which splits into at most 4 stages: give --param pp <= 4");
    PretrainSpec spec;
    spec.steps = static_cast<int>(*integer_flag(vm, "pretrain-steps", io::range::kSteps));
    spec.seed  = seed;
    const std::string dir = vm.count("cache-dir") ? vm["cache-dir"].as<std::string>() : default_cache_dir();
    Progress line("ccsim train", progress);
    line.update(fmt::format("pre-training on {} ({} steps, or the cache)", spec.corpus, spec.steps), 0, 1, "models");
    pretrained = pretrained_transformer(spec, dir);
    line.finish();
    if (!pretrained.note.empty())
      std::cerr << "ccsim train: " << pretrained.note << "\n";
    task_doc["pretrain"] = {{"algorithm", "adam"},
                            {"corpus", spec.corpus},
                            {"steps", spec.steps},
                            {"global_batch", spec.global_batch},
                            {"workers", spec.workers},
                            {"seed", spec.seed},
                            {"cache_key", fmt::format("{:016x}", pretrained.key)},
                            {"cache_file", pretrained.file},
                            {"from_cache", pretrained.from_cache}};
    // Fine-tuning runs at a fine-tuning rate unless --param lr says otherwise (PretrainCache.hpp, kFinetuneLr).
    const bool lr_given = hyper.count("lr") != 0;
    if (!lr_given)
      hyper["lr"] = kFinetuneLr;
    task_doc["lr"]        = hyper.at("lr");
    task_doc["lr_source"] =
        lr_given ? "--param lr" : fmt::format("fine-tuning default: a tenth of the pre-training rate {}", kPretrainLr);
  }

  nlohmann::json runs = nlohmann::json::array();
  std::string stopped; // how far a stopped run got ("" = not stopped)
  for (std::size_t a = 0; a < algorithm_list.size() && stopped.empty(); ++a) {
    const std::string& algorithm = algorithm_list[a];
    algorithms::TrainConfig cfg;
    cfg.algorithm    = algorithm;
    cfg.model        = vm["model"].as<std::string>();
    cfg.workers      = workers;
    cfg.steps        = steps;
    cfg.global_batch = batch;
    // The transformer costs ~100x the MLP per sample; its own defaults keep a run near the ~30 s budget (issue 6).
    if (cfg.model == "tiny-transformer") {
      if (vm["steps"].defaulted())
        cfg.steps = 200;
      if (vm["global-batch"].defaulted())
        cfg.global_batch = 64;
    }
    cfg.seed         = seed;
    cfg.initial      = pretrained.params; // null unless --task finetune
    cfg.hyper        = algorithms::hyper_for(algorithm, hyper);
    cfg.kernels      = &kernels;
    // Progress per step; a signal or the time limit stops the loop after the step it is in.
    Progress line("ccsim train", progress);
    const std::string what =
        algorithm_list.size() > 1 ? fmt::format("{} ({} of {})", algorithm, a + 1, algorithm_list.size()) : algorithm;
    cfg.on_step = [&](int step, double loss) {
      line.update(what, step, cfg.steps, "steps", 0, fmt::format("held-out loss {:.4f}", loss));
      return !stop_requested();
    };
    algorithms::TrainResult r;
    try {
      r = algorithms::train(cfg);
    } catch (const std::invalid_argument& e) {
      throw io::InputError("ccsim train", "", algorithm + ": " + e.what());
    }
    line.finish();
    if (r.steps_done < cfg.steps) {
      stopped = fmt::format("{} stopped at step {}/{}", algorithm, r.steps_done, cfg.steps);
      if (stop_signal() != 0)
        throw stop_exception(stopped); // a signal: out now, nothing printed
    }
    nlohmann::json run = {{"algorithm", algorithm},      {"backend", kernels.name()},
                          {"final_loss", r.final_loss},   {"loss_curve", r.loss_curve},
                          {"bytes_per_worker", r.bytes_per_worker}, {"wall_s", r.wall_s},
                          {"steps_done", r.steps_done},  {"complete", r.steps_done == cfg.steps},
                          {"task", task_doc}};
    // A run whose parameters overflowed has no loss to report (final_loss and the curve's later points are null).
    run["diverged_at_step"] = r.diverged_step >= 0 ? nlohmann::json(r.diverged_step) : nlohmann::json(nullptr);
    if (vm.count("topology") != 0 && stopped.empty()) {
      nlohmann::json times;
      try {
        times = simulated_times(vm, algorithm, cfg.hyper);
      } catch (const RunStopped&) {
        if (stop_signal() != 0)
          throw stop_exception(algorithm + ": trained, its time curve not simulated");
        stopped = algorithm + " trained, its time curve not simulated";
        run["complete"] = false;
        runs.push_back(run);
        break;
      }
      nlohmann::json curve = nlohmann::json::array();
      double t             = 0;
      std::size_t next     = 0;
      curve.push_back({0.0, r.loss_curve.front().second});
      for (std::size_t s = 0; s < r.step_phase.size(); ++s) {
        const auto& phase = r.step_phase[s];
        t += times.contains(phase) ? times[phase].get<double>() : times.begin()->get<double>();
        while (next < r.loss_curve.size() && r.loss_curve[next].first <= static_cast<int>(s + 1)) {
          if (r.loss_curve[next].first == static_cast<int>(s + 1))
            curve.push_back({t, r.loss_curve[next].second});
          ++next;
        }
      }
      run["time_curve"] = curve;
    }
    runs.push_back(run);
  }

  // Past --time-limit: what finished is printed (a stopped run with complete: false), then one line and exit 3.
  const nlohmann::json doc = algorithm_list.size() == 1 && runs.size() == 1 ? runs[0] : nlohmann::json{{"runs", runs}};
  if (vm.count("plot") != 0)
    plot_into(vm["plot"].as<std::string>(), "train.json", {{"runs", runs}}, "loss_curves.py", "train", "the loss curves");
  const std::string stop_note =
      stopped + (runs.size() < algorithm_list.size() ? fmt::format(", {} of {} algorithms not run",
                                                                   algorithm_list.size() - runs.size(), algorithm_list.size())
                                                     : "");
  if (format == Format::JSON) {
    std::cout << io::dump_json(doc, 2) << "\n";
    if (!stopped.empty())
      throw stop_exception(stop_note);
    return 0;
  }
  Table t({"algorithm", "final held-out loss", "bytes/worker (MB)", "wall (s)"});
  for (const auto& run : runs)
    t.add_row({run["algorithm"].get<std::string>() +
                   (run["complete"].get<bool>() ? "" : fmt::format(" (step {})", run["steps_done"].get<int>())),
               run["diverged_at_step"].is_null()
                   ? format_number(run["final_loss"].get<double>(), 5)
                   : fmt::format("diverged (not finite from step {})", run["diverged_at_step"].get<int>()),
               format_number(run["bytes_per_worker"].get<double>() / 1e6), format_number(run["wall_s"].get<double>(), 3)});
  t.print(std::cout);
  if (!stopped.empty())
    throw stop_exception(stop_note);
  return 0;
}

} // namespace ccsim::cli
