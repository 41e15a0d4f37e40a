#pragma once
// Everything ccsim knows of one algorithm, in one value: its name and description, its communication plan (what
// `ccsim simulate` runs), its numeric update (what `ccsim train` runs), the --param keys of both commands, the extra
// memory it keeps, the papers' defaults it trains with, the family and baseline it is compared against, and the
// parallelisms and ZeRO stages it supports. Each algorithm's descriptor is written beside its plan
// (algorithms/<family>/<Family>Algorithms.cpp) and registered with one line (algorithms/BuiltinAlgorithms.cpp, or
// register_algorithm for one a test or a tool adds); everything else reads it through the registry
// (algorithms/Registry.hpp) and rejects a name it does not hold.

#include "algorithms/PlanAlgorithm.hpp"
#include "algorithms/Training.hpp"

#include "numerics/CompressionKernels.hpp"
#include "numerics/OptimizerTypes.hpp"

#include <algorithm>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ccsim::algorithms {

/// What every optimizer maker gets: the algorithm's name, the layout, the parameter count n (the layout's end), the
/// workers, the hyper-parameters (checked) and where the compressors run their kernels.
struct OptimizerArgs {
  const std::string& name;
  const numerics::TensorLayout& layout;
  std::size_t n;
  std::size_t workers;
  const numerics::Hyper& hyper;
  const numerics::CompressionKernels& kernels;
};

/// The numeric update of a data-parallel algorithm: its optimizer, driven by the shared loop of algorithms::train.
using OptimizerMaker = std::unique_ptr<numerics::DistributedOptimizer> (*)(const OptimizerArgs&);
/// A training loop of its own (sharded data parallelism, pipelines: algorithms/TrainingPaths.hpp).
using TrainLoop = std::function<TrainResult(const TrainConfig&)>;

/// Buffers beyond the optimizer's, in fp32 copies of the rank's parameters (algorithms/MemoryFootprint.hpp).
struct ExtraCopies {
  double persistent = 0; // per rank, all the time
  double per_dp     = 0; // divided over the data-parallel ranks, all the time
  double transient  = 0; // only during the optimizer step
  double per_node_at_stage3 = 0; // at ZeRO stage 3 only, divided over a node's data-parallel ranks (ZeRO++ hpZ)
};

/// The paper claims whose settings a comparison trains with (algorithms/PaperDefaults.hpp): an algorithm names the
/// claim it is the method of, and a comparison that holds it runs at that paper's learning-rate schedule.
enum class PaperClaim { NONE, ONEBIT_ADAM, ONEBIT_LAMB, SLAMB };

/// A warm-up `ccsim train` sets where --param freeze_step does not: per_mille / 1000 of the steps (at least 1).
struct WarmupDefault {
  int per_mille = 0;
  std::string source; // the paper and section the fraction comes from
};

struct AlgorithmDescriptor {
  std::string name;        // as every command takes it: "onebit-adam"
  std::string description; // one line, for `ccsim list algorithms`

  /// How it lays the model out (the step engine builds its groups accordingly, the training loop is chosen by it and
  /// the plan's own parallelism() must agree), and the ZeRO stages it is simulated at (`--zero`; StepShape::zero_stage):
  /// the first is what it runs when --zero is not given. Data-parallel algorithms run stage 0 (each GPU holds the
  /// whole optimizer state; 1-bit Adam/LAMB are not compatible with ZeRO in DeepSpeed); the sharded ones 1
  /// (Megatron's distributed optimizer), 2 and 3 (ZeRO-3 / FSDP per-layer weight gathers), all but those whose
  /// weight differences need the whole previous model (qWD: 1 and 2).
  Parallelism parallelism = Parallelism::DATA_PARALLEL;
  std::vector<int> zero_stages;
  /// Whether it runs context parallelism (`--cp` > 1; StepShape::cp): its plan sizes every data-parallel collective
  /// and shard for the dp x cp ranks that reduce gradients together (StepShape::grad_group(); Megatron-Core reduces
  /// over the data-parallel group with context parallelism). Its model-parallel work (ring attention's K/V exchange)
  /// is add_model_parallel_work's. A pipeline algorithm (GPipe without tensor parallelism) cannot declare it.
  bool context_parallel = false;

  /// simulate: its communication plan; null for an algorithm that only trains (sgd).
  std::shared_ptr<const PlanAlgorithm> plan;
  /// train: a data-parallel optimizer (`optimizer`), or a loop of its own (`train_loop`); neither: simulate only.
  OptimizerMaker optimizer = nullptr;
  TrainLoop train_loop;
  /// The keys `ccsim train --param` accepts for it. A key several algorithms read is declared once and shared
  /// (algorithms/TrainParams.hpp; the registry checks every declaration of a key says the same). Where simulate's
  /// --param takes the same parameter, it is the plan's own declaration (SLAMB's k and H: SparsePlan.hpp); the
  /// pipelines' fw_bits and bw_bits are two parameters under one name, as the loop's quantizer packs at most 8 bits.
  std::vector<ParamSpec> train_params;

  /// Its persistent and step-time buffers beyond the optimizer's (memory_footprint adds them).
  ExtraCopies memory;
  /// The papers' settings it trains with: its warm-up, and the claim whose schedule a comparison holding it runs.
  std::optional<WarmupDefault> warmup;
  PaperClaim claim = PaperClaim::NONE;

  /// The family it is compared in and that family's uncompressed baseline (itself for a baseline): the convergence
  /// evidence measures it against `baseline` (api/advise/ConvergenceEvidence.hpp checks each row says so).
  std::string family;
  std::string baseline;
  /// advise's baseline for workloads trained with this parallelism: adam for BERT-style data parallelism, megatron-dp
  /// for sharded GPT runs, fp32-pipeline for AQ-SGD's pipelines. At most one per parallelism.
  bool reference_for_parallelism = false;

  /// The ZeRO stage it runs when --zero is not given: the first of zero_stages (0 when it lists none).
  int default_zero_stage() const { return zero_stages.empty() ? 0 : zero_stages.front(); }
  bool supports_zero_stage(int stage) const
  {
    return zero_stages.empty() ? stage == 0
                               : std::find(zero_stages.begin(), zero_stages.end(), stage) != zero_stages.end();
  }
  bool simulates() const { return plan != nullptr; }
  bool trains() const { return optimizer != nullptr || static_cast<bool>(train_loop); }
  /// Its declaration of train key `key`, or nullptr when its update does not read it.
  const ParamSpec* train_param(const std::string& key) const;
  /// simulate's --param keys (the plan's), empty without a plan.
  std::vector<ParamSpec> simulate_params() const;
};

} // namespace ccsim::algorithms
