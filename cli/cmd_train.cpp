// `ccsim train`: genuine convergence runs of proxy models with N in-process workers through the real
// compressors; with --topology/--gpus also loss against simulated cluster time (time-to-accuracy).
#include "algorithms/PlanAlgorithm.hpp"
#include "algorithms/TrainParams.hpp"
#include "algorithms/Training.hpp"
#include "cli/Command.hpp"
#include "cli/Options.hpp"
#include "api/output/PlotOutput.hpp"
#include "api/output/OutputFile.hpp"
#include "api/training/PretrainCache.hpp"
#include "cli/Progress.hpp"
#include "api/training/TrainRuns.hpp"
#include "api/process/RunControl.hpp"
#include "api/run/Simulation.hpp"
#include "api/process/Spawn.hpp"
#include "api/output/Table.hpp"
#include "api/run/Backends.hpp"
#include "io/JsonInput.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

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

} // namespace

int cmd_train(const std::vector<std::string>& args)
{
  po::options_description desc("ccsim train options");
  add_common_options(desc);
  desc.add_options()
    ("algorithm", po::value<std::string>()->required(), "algorithm, or a comma-separated list to compare")
    ("model", po::value<std::string>()->default_value("mlp"), "proxy model: mlp, tiny-transformer or char-gpt (workloads/proxy/TinyTransformer.hpp says which claims each is for)")
    ("workers", po::value<std::string>()->default_value("16"), "in-process data-parallel workers")
    ("steps", po::value<std::string>()->default_value("1000"), "training steps (a transformer: 200)")
    ("global-batch", po::value<std::string>()->default_value("512"), "samples per step over all workers (a transformer: 64)")
    ("param", po::value<std::vector<std::string>>()->composing(), param_help().c_str())
    ("seed", po::value<std::string>()->default_value("1"), "seed (data, model and compressors)")
    ("stop-after", po::value<std::string>()->value_name("STEPS"), "train only the first STEPS steps of each run, on the schedule and warm-up of all --steps: its held-out loss there is the full run's, to the bit (what scripts/convergence-evidence.sh --check compares)")
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
  // The compressors' kernels run where the backend says; everything else of the loop stays on the CPU.
  const numerics::CompressionKernels& kernels = kernels_for(backend);
  if ((vm.count("topology") != 0) != (vm.count("gpus") != 0))
    throw io::InputError(vm.count("topology") != 0 ? "--gpus" : "--topology", "", "--topology and --gpus go together");

  const auto algorithm_list = split(vm["algorithm"].as<std::string>());
  if (algorithm_list.empty())
    throw io::InputError("--algorithm", "", "names no algorithm (give one, or a comma-separated list)");
  numerics::Hyper hyper;
  if (vm.count("param") != 0)
    hyper = train_hyper(parse_key_values(vm["param"].as<std::vector<std::string>>(), "--param"), algorithm_list,
                        vm["algorithm"].as<std::string>());
  TrainRequest req;
  req.algorithms = algorithm_list;
  req.model      = vm["model"].as<std::string>();
  req.workers    = static_cast<int>(*integer_flag(vm, "workers", io::range::kWorkers));
  // Unset, the model's own defaults (api/training/TrainRuns.hpp): the flags' for the mlp, 200 x 64 for a transformer.
  if (!vm["steps"].defaulted())
    req.steps = static_cast<int>(*integer_flag(vm, "steps", io::range::kSteps));
  if (!vm["global-batch"].defaulted())
    req.global_batch = static_cast<int>(*integer_flag(vm, "global-batch", io::range::kTrainBatch));
  if (vm.count("stop-after") != 0)
    req.stop_after = static_cast<int>(*integer_flag(vm, "stop-after", io::range::kSteps));
  req.hyper   = hyper;
  req.seed    = static_cast<std::uint64_t>(*integer_flag(vm, "seed", io::range::kSeed));
  req.kernels = &kernels;
  // --task finetune: one pre-trained starting point for every algorithm of the list (api/training/PretrainCache.hpp).
  req.task = choice_flag(vm, "task", {"scratch", "finetune"});
  if (req.task == "scratch" && (!vm["pretrain-steps"].defaulted() || vm.count("cache-dir") != 0))
    throw io::InputError(vm.count("cache-dir") != 0 ? "--cache-dir" : "--pretrain-steps", "", "goes with --task finetune");
  if (req.task == "finetune") {
    req.pretrain_steps = static_cast<int>(*integer_flag(vm, "pretrain-steps", io::range::kSteps));
    if (vm.count("cache-dir"))
      req.cache_dir = vm["cache-dir"].as<std::string>();
  }
  if (vm.count("topology") != 0) {
    req.topology = vm["topology"].as<std::string>();
    req.gpus     = static_cast<int>(*integer_flag(vm, "gpus", io::range::kGpus));
    if (vm.count("workload") != 0)
      req.workload = vm["workload"].as<std::string>();
  }
  // One progress line per piece of work (the pre-training, then each algorithm).
  std::optional<Progress> line;
  std::string current;
  req.on_progress = [&](const std::string& what, double done, double total, const std::string& unit,
                        const std::string& note) {
    if (!line || what != current) {
      line.reset();
      line.emplace("ccsim train", progress);
      current = what;
    }
    line->update(what, done, total, unit, 0, note);
  };
  req.on_note = [&](const std::string& note) {
    if (line)
      line->finish();
    std::cerr << "ccsim train: " << note << "\n";
  };
  const auto outcome = train_algorithms(req);
  line.reset();
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& r : outcome.runs)
    runs.push_back(to_json(r));
  const std::string& stopped = outcome.stopped;
  for (const auto& warning : learning_rate_warnings(outcome))
    std::cerr << "ccsim train: warning: " << warning << "\n";

  // Past --time-limit: what finished is printed (a stopped run with complete: false), then one line and exit 3.
  const nlohmann::json doc = algorithm_list.size() == 1 && runs.size() == 1 ? runs[0] : nlohmann::json{{"runs", runs}};
  if (vm.count("plot") != 0)
    plot_into(vm["plot"].as<std::string>(), "train.json",
              {{"runs", runs}, {"model", req.model}, {"workers", req.workers}}, "loss_curves.py", "train",
              "the loss curves");
  const std::string stop_note =
      stopped + (runs.size() < algorithm_list.size() ? fmt::format(", {} of {} algorithms not run",
                                                                   algorithm_list.size() - runs.size(), algorithm_list.size())
                                                     : "");
  // CSV: a row per algorithm; the loss curves stay in the JSON.
  if (print_json_or_csv(format, doc, runs.get<std::vector<nlohmann::json>>(), {"loss_curve", "time_curve"})) {
    if (!stopped.empty())
      throw stop_exception(stop_note);
    return 0;
  }
  Table t({"algorithm", "lr", "final held-out loss", "bytes/worker (MB)", "wall (s)"});
  for (const auto& run : outcome.runs)
    t.add_row({run.algorithm + (run.complete ? "" : fmt::format(" (step {})", run.steps_done)),
               fmt::format("{:g}", run.lr),
               !run.diverged_at_step ? format_number(run.final_loss, 5)
                                     : fmt::format("diverged (not finite from step {})", *run.diverged_at_step),
               format_number(static_cast<double>(run.bytes_per_worker) / 1e6), format_number(run.wall_s, 3)});
  t.print(std::cout, table_width());
  // Which of the papers' settings ran because --param did not set them, once per setting with the algorithms.
  std::vector<std::pair<std::string, std::vector<std::string>>> defaults;
  for (const auto& run : outcome.runs)
    for (const auto& d : run.defaults) {
      const std::string line = fmt::format("{}={} ({})", d.key, d.text, d.source);
      auto it = std::find_if(defaults.begin(), defaults.end(), [&](const auto& e) { return e.first == line; });
      if (it == defaults.end())
        it = defaults.insert(defaults.end(), {line, {}});
      it->second.push_back(run.algorithm);
    }
  if (!defaults.empty())
    std::cout << "defaults that ran (--param sets them otherwise):\n";
  for (const auto& [line, algorithms] : defaults)
    std::cout << fmt::format("  {}: {}\n", fmt::join(algorithms, ", "), line);
  if (!stopped.empty())
    throw stop_exception(stop_note);
  return 0;
}

} // namespace ccsim::cli
