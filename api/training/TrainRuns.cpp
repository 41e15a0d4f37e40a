// Training runs of a list of algorithms, with their time curves; see TrainRuns.hpp.
#include "api/training/TrainRuns.hpp"

#include "api/process/RunControl.hpp"
#include "api/run/Simulation.hpp"
#include "api/training/PretrainCache.hpp"
#include "algorithms/PlanAlgorithm.hpp"
#include "algorithms/Registry.hpp"
#include "algorithms/TrainParams.hpp"
#include "algorithms/Training.hpp"
#include "io/JsonInput.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

namespace ccsim::api {

namespace {
/// The paper model each algorithm family is measured on: the workload whose simulated step time the time curve uses
/// unless the request names one.
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
/// simulated cluster runs what was trained. `cluster` is set to what was simulated: topology, workload and GPUs.
std::map<std::string, double> simulated_times(const TrainRequest& in, const std::string& algorithm,
                                              const numerics::Hyper& hyper, nlohmann::json& cluster)
{
  const auto* algo = algorithms::find_plan_algorithm(algorithm);
  if (algo == nullptr)
    throw io::InputError("--algorithm", "", "'" + algorithm + "' has no communication plan to simulate");
  SimulateRequest req;
  req.topology  = *in.topology;
  req.workload  = in.workload ? *in.workload : InputSource(paper_workload(*algo));
  req.algorithm = algorithm;
  req.gpus      = in.gpus;
  const auto known = algorithms::default_params(*algo);
  for (const auto& [key, value] : hyper) {
    if (key == "pp" && algo->parallelism() == algorithms::Parallelism::PIPELINE)
      req.pp = static_cast<int>(value);
    else if (known.count(key) != 0)
      req.params[key] = fmt::format("{}", value);
  }
  if (algo->parallelism() == algorithms::Parallelism::PIPELINE && !req.pp)
    req.pp = algorithms::kDefaultPipelineStages;
  const auto report = run_simulation_isolated(req);
  cluster = {{"topology", report.config.topology}, {"workload", report.config.workload}, {"gpus", report.config.gpus}};
  std::map<std::string, double> by_phase;
  for (const auto& p : report.phases)
    by_phase[p.name] = p.step_time_s;
  return by_phase;
}

/// Held-out loss against simulated seconds: each step costs its phase's simulated step time.
std::vector<std::pair<double, double>> time_curve(const algorithms::TrainResult& r,
                                                  const std::map<std::string, double>& times)
{
  std::vector<std::pair<double, double>> curve;
  double t         = 0;
  std::size_t next = 0;
  curve.emplace_back(0.0, r.loss_curve.front().second);
  for (std::size_t s = 0; s < r.step_phase.size(); ++s) {
    const auto it = times.find(r.step_phase[s]);
    t += it != times.end() ? it->second : times.begin()->second;
    while (next < r.loss_curve.size() && r.loss_curve[next].first <= static_cast<int>(s + 1)) {
      if (r.loss_curve[next].first == static_cast<int>(s + 1))
        curve.emplace_back(t, r.loss_curve[next].second);
      ++next;
    }
  }
  return curve;
}
} // namespace

numerics::Hyper train_hyper(const std::map<std::string, std::string>& params,
                            const std::vector<std::string>& algorithm_list, const std::string& algorithm_text)
{
  // Each algorithm then gets the keys its update reads (the baseline of a comparison shares eps, lr, ...).
  numerics::Hyper hyper;
  for (const auto& [k, v] : params) {
    const auto* spec = algorithms::find_train_param(k);
    const bool used  = spec != nullptr && std::any_of(algorithm_list.begin(), algorithm_list.end(), [&](const auto& a) {
                        return algorithms::train_param_applies(*spec, a);
                      });
    if (!used)
      throw io::InputError("--param", "", fmt::format("{} is not read by {} (ccsim train --help lists the keys)",
                                                      io::echo(k), algorithm_text));
    hyper[k] = algorithms::parse_train_param(*spec, v);
  }
  return hyper;
}

TrainOutcome train_algorithms(const TrainRequest& in)
{
  TrainOutcome out;
  out.requested = in.algorithms.size();
  numerics::Hyper hyper = in.hyper;
  // --task finetune: one pre-trained starting point for every algorithm of the list (api/training/PretrainCache.hpp).
  Pretrained pretrained;
  nlohmann::json task_doc = {{"name", in.task}};
  if (in.task == "finetune") {
    if (in.model != "tiny-transformer")
      throw io::InputError("--task", "", "finetune needs --model tiny-transformer (the mlp has no text to shift)");
    if (numerics::hyper_or(hyper, "pp", algorithms::kDefaultPipelineStages) > 4)
      throw io::InputError("--task", "", "finetune pre-trains the 2-layer transformer, which splits into at most 4 stages: give --param pp <= 4");
    PretrainSpec spec;
    spec.steps = in.pretrain_steps;
    spec.seed  = in.seed;
    if (in.on_progress)
      in.on_progress(fmt::format("pre-training on {} ({} steps, or the cache)", spec.corpus, spec.steps), 0, 1, "models",
                     "");
    pretrained = pretrained_transformer(spec, in.cache_dir.empty() ? default_cache_dir() : in.cache_dir);
    if (!pretrained.note.empty() && in.on_note)
      in.on_note(pretrained.note);
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

  // Every name must have an update (the registry's message, as train() gives it) before the claim is looked up.
  for (const auto& algorithm : in.algorithms) {
    try {
      algorithms::trainable_algorithm(algorithm);
    } catch (const std::invalid_argument& e) {
      throw io::InputError("ccsim train", "", algorithm + ": " + e.what());
    }
  }
  // The schedule of the paper whose claim the list tests, the same for every algorithm of it.
  const auto claim = algorithms::claim_defaults(in.algorithms, in.model, hyper);
  hyper            = algorithms::with_defaults(hyper, claim);

  for (std::size_t a = 0; a < in.algorithms.size() && out.stopped.empty(); ++a) {
    const std::string& algorithm = in.algorithms[a];
    algorithms::TrainConfig cfg;
    cfg.algorithm = algorithm;
    cfg.model     = in.model;
    cfg.workers   = in.workers;
    // The transformer costs ~100x the MLP per sample; its own defaults keep a run near the ~30 s budget (issue 6).
    const bool transformer = cfg.model != "mlp";
    cfg.steps        = in.steps.value_or(transformer ? 200 : 1000);
    cfg.global_batch = in.global_batch.value_or(transformer ? 64 : 512);
    cfg.seed         = in.seed;
    cfg.initial      = pretrained.params; // null unless finetune
    cfg.hyper        = algorithms::hyper_for(algorithm, hyper);
    cfg.kernels      = in.kernels;
    // Progress per step; a signal or the time limit stops the loop after the step it is in.
    const std::string what = in.algorithms.size() > 1
                                 ? fmt::format("{} ({} of {})", algorithm, a + 1, in.algorithms.size())
                                 : algorithm;
    const int last_step = std::min(cfg.steps, in.stop_after.value_or(cfg.steps));
    cfg.on_step         = [&](int step, double loss) {
      if (in.on_progress)
        in.on_progress(what, step, last_step, "steps", fmt::format("held-out loss {:.4f}", loss));
      return step < last_step && !stop_requested();
    };
    algorithms::TrainResult r;
    try {
      r = algorithms::train(cfg);
    } catch (const std::invalid_argument& e) {
      throw io::InputError("ccsim train", "", algorithm + ": " + e.what());
    }
    if (r.steps_done < last_step) {
      out.stopped = fmt::format("{} stopped at step {}/{}", algorithm, r.steps_done, cfg.steps);
      if (stop_signal() != 0)
        throw stop_exception(out.stopped); // a signal: out now, nothing printed
    }
    TrainRun run;
    run.algorithm        = algorithm;
    run.backend          = in.kernels->name();
    run.final_loss       = r.final_loss;
    run.loss_curve       = r.loss_curve;
    run.bytes_per_worker = r.bytes_per_worker;
    run.wall_s           = r.wall_s;
    run.steps_done       = r.steps_done;
    run.complete         = r.steps_done == cfg.steps;
    run.task             = task_doc;
    for (const auto& d : claim)
      if (cfg.hyper.count(d.key) != 0) // the keys this algorithm reads
        run.defaults.push_back(d);
    for (const auto& d : algorithms::algorithm_defaults(algorithm, cfg.steps, cfg.hyper))
      run.defaults.push_back(d);
    // The rate the update read (algorithms/Training.hpp: kDefaultLr unless given) and where it came from.
    run.lr = cfg.hyper.count("lr") != 0 ? cfg.hyper.at("lr") : algorithms::kDefaultLr;
    const auto paper_lr = std::find_if(run.defaults.begin(), run.defaults.end(),
                                       [](const algorithms::DefaultParam& d) { return d.key == "lr"; });
    run.lr_source = in.hyper.count("lr") != 0       ? "--param lr"
                    : paper_lr != run.defaults.end() ? "paper default: " + paper_lr->source
                    : in.task == "finetune"          ? "fine-tuning default"
                                                     : "ccsim's default for the proxy models";
    // A run whose parameters overflowed has no loss to report (final_loss and the curve's later points are null).
    if (r.diverged_step >= 0)
      run.diverged_at_step = r.diverged_step;
    if (in.topology && out.stopped.empty()) {
      std::map<std::string, double> times;
      try {
        times = simulated_times(in, algorithm, cfg.hyper, run.simulated_cluster);
      } catch (const RunStopped&) {
        if (stop_signal() != 0)
          throw stop_exception(algorithm + ": trained, its time curve not simulated");
        out.stopped  = algorithm + " trained, its time curve not simulated";
        run.complete = false;
        out.runs.push_back(run);
        break;
      }
      run.time_curve = time_curve(r, times);
    }
    out.runs.push_back(std::move(run));
  }
  return out;
}

namespace {
nlohmann::json defaults_json(const std::vector<algorithms::DefaultParam>& defaults)
{
  nlohmann::json out = nlohmann::json::array();
  for (const auto& d : defaults)
    out.push_back({{"key", d.key}, {"value", d.text}, {"source", d.source}});
  return out;
}
} // namespace

std::vector<std::string> learning_rate_warnings(const TrainOutcome& outcome, double factor)
{
  std::vector<std::string> lines;
  if (outcome.runs.size() < 2 || !std::isfinite(outcome.runs[0].final_loss) || outcome.runs[0].final_loss <= 0)
    return lines;
  const TrainRun& base = outcome.runs[0];
  for (std::size_t i = 1; i < outcome.runs.size(); ++i) {
    const TrainRun& run = outcome.runs[i];
    // Only a rate nobody chose: given with --param lr, or taken from the paper whose claim runs, it is not a hint.
    if (!run.complete || !std::isfinite(run.final_loss) || run.final_loss <= factor * base.final_loss ||
        run.lr_source == "--param lr" || run.lr_source.rfind("paper default", 0) == 0)
      continue;
    lines.push_back(fmt::format("{} ends at loss {:.4g}, {:.3g}x {}'s {:.4g}, at lr {:g} ({}, not a rate from its "
                                "paper); try another with --param lr=VALUE",
                                run.algorithm, run.final_loss, run.final_loss / base.final_loss, base.algorithm,
                                base.final_loss, run.lr, run.lr_source));
  }
  return lines;
}

nlohmann::json to_json(const TrainRun& run)
{
  nlohmann::json doc = {{"algorithm", run.algorithm},
                        {"backend", run.backend},
                        {"final_loss", run.final_loss},
                        {"loss_curve", run.loss_curve},
                        {"bytes_per_worker", run.bytes_per_worker},
                        {"wall_s", run.wall_s},
                        {"steps_done", run.steps_done},
                        {"complete", run.complete},
                        {"task", run.task},
                        {"defaults", defaults_json(run.defaults)},
                        {"lr", run.lr},
                        {"lr_source", run.lr_source},
                        {"diverged_at_step",
                         run.diverged_at_step ? nlohmann::json(*run.diverged_at_step) : nlohmann::json(nullptr)}};
  if (!run.simulated_cluster.is_null())
    doc["simulated_cluster"] = run.simulated_cluster;
  if (run.time_curve) {
    nlohmann::json curve = nlohmann::json::array();
    for (const auto& [t, loss] : *run.time_curve)
      curve.push_back({t, loss});
    doc["time_curve"] = curve;
  }
  return doc;
}

} // namespace ccsim::api
