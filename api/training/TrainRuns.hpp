#pragma once
// `ccsim train` as a library call: genuine convergence runs of a proxy model, one per algorithm of a list, with N
// in-process workers through the real compressors (algorithms/Training.hpp); with `--task finetune` every run starts
// from one pre-trained model (api/training/PretrainCache.hpp); with a topology, each run's held-out loss is also laid
// against simulated cluster time (time-to-accuracy), each step priced at its own phase's simulated step time.

#include "algorithms/PaperDefaults.hpp"
#include "api/run/SimulateRequest.hpp"
#include "numerics/CompressionKernels.hpp"
#include "numerics/Optimizers.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ccsim::api {

struct TrainRequest {
  std::vector<std::string> algorithms; // compared on the same data, model and seed
  std::string model = "mlp";           // mlp | tiny-transformer | char-gpt
  int workers       = 16;
  /// Steps and global batch; unset: the model's defaults (mlp 1000 x 512, a transformer 200 x 64: a run near 30 s).
  std::optional<int> steps, global_batch;
  /// Train only the first this-many steps of each run, on the schedule and warm-up of all `steps` (a run that
  /// reproduces these reproduces their held-out loss exactly: scripts/convergence-evidence.sh --check); unset: all.
  std::optional<int> stop_after;
  numerics::Hyper hyper; // --param keys; each algorithm takes those its update reads
  std::uint64_t seed = 1;
  const numerics::CompressionKernels* kernels = &numerics::cpu_kernels();
  std::string task = "scratch"; // scratch | finetune
  int pretrain_steps = 400;     // finetune: pre-training steps
  std::string cache_dir;        // finetune: where pre-trained models are kept (empty: default_cache_dir())
  /// Loss against simulated time on this cluster (preset, path or document) with this many GPUs; unset: none.
  std::optional<InputSource> topology;
  int gpus = 0;
  std::optional<InputSource> workload; // the model whose step time is simulated (default: the algorithm's paper model)
  /// Progress of the work in hand: `what` ("onebit-adam (2 of 3)", or the pre-training), `done` of `total` in `unit`
  /// ("steps", "models"), and a note (the newest held-out loss). A new `what` starts a new piece of work.
  std::function<void(const std::string& what, double done, double total, const std::string& unit,
                     const std::string& note)>
      on_progress;
  /// A line for the user (why a cached pre-trained model was trained again).
  std::function<void(const std::string& line)> on_note;
};

/// One algorithm's run.
struct TrainRun {
  std::string algorithm;
  std::string backend;
  double final_loss = 0; // NaN when the run diverged
  std::vector<std::pair<int, double>> loss_curve; // (step, held-out loss); NaN past a divergence
  std::uint64_t bytes_per_worker = 0;
  double wall_s                  = 0;
  int steps_done          = 0;
  bool complete           = false;
  std::optional<int> diverged_at_step;
  nlohmann::json task; // {"name": scratch|finetune, "pretrain": {...}, "lr", "lr_source"}
  /// The papers' settings this run took because --param did not set them (algorithms/PaperDefaults.hpp).
  std::vector<algorithms::DefaultParam> defaults;
  double lr = 0;         // the learning rate the run used
  std::string lr_source; // "--param lr", "paper default: SOURCE", or which of ccsim's defaults
  /// With a topology: (simulated seconds, held-out loss), from 0.
  std::optional<std::vector<std::pair<double, double>>> time_curve;
  nlohmann::json simulated_cluster; // with a topology: {"topology", "workload", "gpus"} the time curve ran on; else null
};

struct TrainOutcome {
  std::vector<TrainRun> runs;
  std::size_t requested = 0; // algorithms asked for
  std::string stopped;       // how far a run stopped by the time limit got ("" when none was)
};

/// `--param key=value` pairs as the hyper-parameters of a comparison: one set serves every algorithm of the list, so a
/// key must be read by at least one of `algorithm_list` (else io::InputError naming --param and `algorithm_text`),
/// and each value is parsed and range-checked by its spec (algorithms/TrainParams.hpp).
numerics::Hyper train_hyper(const std::map<std::string, std::string>& params,
                            const std::vector<std::string>& algorithm_list, const std::string& algorithm_text);

/// Trains every algorithm in turn. A signal throws RunStopped at once; past the time limit the runs finished so far
/// (and the stopped one, complete: false) are returned with `stopped` set. Bad input throws io::InputError.
TrainOutcome train_algorithms(const TrainRequest& request);

nlohmann::json to_json(const TrainRun& run);

/// One line per run that ends far above the comparison's baseline (the first algorithm of the list): a final loss over
/// `factor` times the baseline's, reached at a default learning rate (none of the papers trains at ccsim's defaults),
/// naming --param lr as the setting to try.
std::vector<std::string> learning_rate_warnings(const TrainOutcome& outcome, double factor = 1.5);

} // namespace ccsim::api
