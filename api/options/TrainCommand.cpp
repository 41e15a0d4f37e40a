// `train`'s option table and request builder (TrainCommand.hpp).
#include "api/options/TrainCommand.hpp"

#include "algorithms/TrainParams.hpp"
#include "api/options/CommonOptions.hpp"
#include "api/output/PlotOutput.hpp"
#include "api/run/Backends.hpp"
#include "api/training/PretrainCache.hpp"

#include "io/JsonInput.hpp"

#include <fmt/format.h>

#include <sstream>

namespace ccsim::api {

namespace {
/// --param's help: every key, its range and what it does, from algorithms/TrainParams.cpp.
std::string param_help()
{
  std::string text = "parameter key=value (repeatable):";
  for (const auto& s : algorithms::train_param_specs())
    text += fmt::format("\n  {} in {}: {}", s.key, algorithms::train_param_values(s), s.doc);
  return text;
}

/// --algorithm: one name or a comma-separated list (empty items are skipped), kept as typed for its errors. A repeat
/// counts once and the list holds io::limits::kMaxListItems different names (read_repeated): ["adam"] * 10**6 is one
/// training, not a million (issue 43).
void read_algorithms(TrainCommand& c, const GivenValue& value, const Option& o)
{
  c.algorithm_text = value.text();
  std::vector<std::string> items;
  std::stringstream in(c.algorithm_text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty())
      items.push_back(item);
  c.algorithms = read_repeated(items, o);
}
} // namespace

const OptionTable<TrainCommand>& train_options()
{
  static const OptionTable<TrainCommand> table = [] {
    namespace r = io::range;
    using C     = TrainCommand;
    auto lines  = terminal_lines<C>();
    append(lines, {
        {list_option("algorithm", std::nullopt, 0, "algorithm, or a comma-separated list to compare").needed(),
         read_algorithms},
        {text_option("model", "proxy model: mlp, tiny-transformer or char-gpt (workloads/proxy/TinyTransformer.hpp says "
                              "which claims each is for)")
             .defaults("mlp"),
         into(&C::model)},
        {integer_option("workers", r::kWorkers, "in-process data-parallel workers").defaults("16"), into(&C::workers)},
        // Unset, the model's own defaults (api/training/TrainRuns.hpp): these for the mlp, 200 x 64 for a transformer.
        {integer_option("steps", r::kSteps, "training steps (a transformer: 200)").shows_default("1000"),
         into(&C::steps)},
        {integer_option("global-batch", r::kTrainBatch, "samples per step over all workers (a transformer: 64)")
             .shows_default("512"),
         into(&C::global_batch)},
        {key_value_option("param", '=', param_help()).in_python("params"), into(&C::params)},
        {integer_option("seed", r::kSeed, "seed (data, model and compressors)").defaults("1"), into(&C::seed)},
        {integer_option("stop-after", r::kSteps,
                        "train only the first STEPS steps of each run, on the schedule and warm-up of all --steps: its "
                        "held-out loss there is the full run's, to the bit (what scripts/convergence-evidence.sh --check "
                        "compares)")
             .value("STEPS"),
         into(&C::stop_after)},
        {choice_option("backend", {"cpu", "cuda"}, "where the compressors' kernels run: cpu or cuda").defaults("cpu"),
         into(&C::backend)},
        {source_option("topology", "with --gpus: also report loss against simulated time on this cluster"),
         into(&C::topology)},
        {integer_option("gpus", r::kGpus, "GPUs of the simulated cluster"), into(&C::gpus)},
        {source_option("workload", "model whose step time the simulation uses (default: the algorithm's paper model, "
                                   "bert-large, gpt-1.3b or gpt2-xl)"),
         into(&C::workload)},
        {path_option("plot", "write loss curves (PNG + SVG) into this folder"), into(&C::plot_dir)},
        {choice_option("task", {"scratch", "finetune"},
                       fmt::format("scratch (train from the random initialisation) or finetune (tiny-transformer: "
                                   "start every algorithm from a model pre-trained with fp32 Adam on Debian's GPL-2 at "
                                   "lr {}, cached on disk, and fine-tune on GPL-3, as AQ-SGD's runs fine-tune; lr "
                                   "defaults to {} there)",
                                   kPretrainLr, kFinetuneLr))
             .defaults("scratch"),
         into(&C::task)},
        {integer_option("pretrain-steps", r::kSteps,
                        "with --task finetune: pre-training steps (batch 64, 16 workers, the run's seed)")
             .defaults("400"),
         into(&C::pretrain_steps)},
        {path_option("cache-dir", "with --task finetune: where pre-trained models are kept (default $CCSIM_CACHE_DIR, "
                                  "else $XDG_CACHE_HOME/ccsim, else ~/.cache/ccsim)")
             .value("DIR"),
         into(&C::cache_dir)},
    });
    append(lines, long_run_lines<C>(kTimeLimitHelp));
    return OptionTable<C>("train", "", "train", std::move(lines));
  }();
  return table;
}

TrainCommand build_train(const GivenValues& given)
{
  TrainCommand c = train_options().fill(given);
  // The compressors' kernels run where the backend says; everything else of the loop stays on the CPU.
  c.kernels = &kernels_for(c.backend);
  if (given.has("topology") != given.has("gpus"))
    throw io::InputError(given.has("topology") ? "--gpus" : "--topology", "", "--topology and --gpus go together");
  if (c.algorithms.empty())
    throw io::InputError("--algorithm", "", "names no algorithm (give one, or a comma-separated list)");
  if (given.has("param"))
    c.hyper = train_hyper(c.params, c.algorithms, c.algorithm_text);
  // --task finetune: one pre-trained starting point for every algorithm of the list (api/training/PretrainCache.hpp).
  if (c.task == "scratch" && (given.has("pretrain-steps") || given.has("cache-dir")))
    throw io::InputError(given.has("cache-dir") ? "--cache-dir" : "--pretrain-steps", "", "goes with --task finetune");
  if (!c.topology)
    c.workload.reset(); // the workload only prices a simulated cluster's steps
  return c;
}

void write_train_files(const TrainCommand& c, const nlohmann::json& runs)
{
  if (c.plot_dir)
    plot_into(*c.plot_dir, "train.json", {{"runs", runs}, {"model", c.model}, {"workers", c.workers}},
              "loss_curves.py", "train", "the loss curves");
}

} // namespace ccsim::api
