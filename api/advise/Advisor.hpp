#pragma once
// `ccsim advise` as a library call: simulate every algorithm that fits the cluster and model (with `search`, at every
// dp/tp/pp split and micro-batch of api/advise/ShapeSearch.hpp, each at its fastest) and rank them by time-to-accuracy:
// the steps each needs to reach its family's uncompressed target loss (relative to that baseline, measured on the
// proxy models: api/advise/ConvergenceEvidence.hpp) times its simulated time per step (warm-up phases included at their
// share). Algorithms that do not reach the target are listed after those that do, never above one; those whose seeds
// disagree (converges: uncertain) between the two.

#include "api/advise/ConvergenceEvidence.hpp"
#include "api/advise/MemoryFixes.hpp"
#include "api/run/SimulateRequest.hpp"
#include "api/run/SimulationReport.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ccsim::api {

struct AdviseRequest {
  InputSource topology, workload; // presets or paths, or documents (a Python dict)
  /// The run's shape as given: gpus (required), global_batch, micro_batch, bandwidth_gbps.
  SimulateRequest shape;
  double epoch_samples = 1e6; // samples in one epoch (time per epoch = samples / throughput)
  int jobs             = 2;   // simulations at once
  std::string evidence_file;  // the convergence evidence (default_evidence_path())
  bool search = false;        // every split and micro-batch per algorithm, ranked at its fastest
  /// Filters (empty: no filter): only these tensor- and pipeline-parallel degrees (without search, one value each: the
  /// run's split) and only these algorithms (each must suit the workload's family).
  std::vector<int> tp, pp;
  std::vector<std::string> algorithms;
  /// ZeRO stages (empty: no filter): each algorithm runs at these stages where its descriptor has them, else at its
  /// own default. Without search one value; with search every stage of the list (or, unset, every stage the algorithm
  /// runs) is tried at every split it can run with (stages 2 and 3 need pp = 1).
  std::vector<int> zero;
  /// Model chunks per pipeline stage (empty: no filter): without search one value, given to every run with pp > 1 it
  /// applies to; with search these (unset: every whole number of layers per chunk) at every split with pp > 1 of a
  /// data-parallel algorithm (Megatron's interleaved 1F1B; the pipeline algorithms run GPipe).
  std::vector<int> vpp;
  /// With search, skip the splits that cannot be the fastest (api/advise/ShapeBound.hpp); off: simulate every one.
  bool prune = true;
  /// Progress: `done` of `total` simulations of `what` (the workload), counted in `unit` ("algorithms" or "splits").
  std::function<void(const std::string& what, std::size_t done, std::size_t total, const std::string& unit)> on_progress;
};

/// One algorithm in the ranking, at its chosen split.
struct RankedAlgorithm {
  std::string algorithm;
  double epoch_time_s = 0, samples_per_s = 0, speedup = 0;
  /// Samples/s x the sequence length, in all and per GPU (the metrics tokens_per_s, tokens_per_s_per_gpu); 0 for a
  /// workload without a sequence length.
  double tokens_per_s = 0, tokens_per_s_per_gpu = 0;
  Interval samples_per_s_range; // its likely range (api/run/Intervals.hpp)
  double inter_node_bytes_per_gpu = 0, intra_node_bytes_per_gpu = 0;
  std::size_t phases      = 0;
  double memory_gb_per_gpu = 0;
  MemoryVerdict fits_memory = MemoryVerdict::UNKNOWN;
  int dp = 0, tp = 0, pp = 0;
  std::optional<int> zero_stage; // the ZeRO stage, where the run named one (--zero, the workload's, or the search's)
  int vpp = 1;                   // model chunks per pipeline stage (interleaved 1F1B when > 1)
  std::uint64_t micro_batch = 0;
  int grad_accumulation     = 0;
  bool activation_recomputation = false;
  std::string recompute = "none"; // the recomputation mode it ran with: none, selective or full
  /// Over every evidence row of the algorithm (proxies, regimes): yes when all say yes, no when all say no,
  /// uncertain otherwise; unknown without evidence.
  std::optional<Converges> converges;
  std::optional<double> time_to_accuracy_h;
  std::optional<double> steps_ratio; // from a transformer row where one has it (the claims' proxy), else the mlp's
  bool has_evidence = false;
  std::string family, baseline, command; // the row the steps ratio comes from
  std::string reason;                    // why not yes: the reasons of the rows that are not
  std::vector<std::string> evidence;     // every row's numbers (EvidenceRow::summary)
  std::vector<std::string> evidence_short; // the same, short (EvidenceRow::short_summary)
  std::size_t splits_tried = 0, splits_that_run = 0; // with search
  std::size_t throughput_rank = 0;                   // its place by samples/s alone
};

struct CannotRun {
  std::string algorithm;
  std::string reason;
  /// Without search, where it is refused for memory alone: what it needs, and the changes of its options that make it
  /// fit (api/advise/MemoryFixes.hpp; none when no change tried fits). With search every split was tried already.
  std::optional<MemoryShortfall> memory;
  std::vector<MemoryFix> would_fit;
};

/// What the search did with its candidate splits (all algorithms together).
struct SearchCounts {
  std::size_t candidates = 0;       // (algorithm, split) pairs
  std::size_t simulated = 0;        // run through the simulator
  std::size_t pruned_by_memory = 0; // do not fit the GPUs' memory even with activation recomputation
  std::size_t pruned_by_bound = 0;  // their compute alone is slower than their algorithm's best simulated split
  std::size_t invalid = 0;          // another check of `simulate` rejects them (the batch does not divide, ...)
  std::size_t left = 0;             // not evaluated: the time limit came first
};

struct AdviseReport {
  std::string title;
  std::string workload;
  std::string baseline; // the family's uncompressed algorithm speedups are relative to
  double epoch_samples = 0;
  std::string evidence_file;
  bool search = false;
  /// Converging by time-to-accuracy, then uncertain ones by time-to-accuracy, then no evidence, then not converging.
  std::vector<RankedAlgorithm> ranking;
  std::vector<CannotRun> cannot_run;
  SearchCounts counts;   // with search; without it, candidates / simulated / left count algorithms
  bool partial = false;  // the time limit ended the evaluation early: the ranking is the best of what finished
  double seconds = 0;    // when it ended, from the start of the process (api/process/RunControl.hpp)
};

/// Simulates and ranks. A bad configuration of the baseline (without search) throws io::InputError; algorithms that
/// cannot run, the baseline too when it does not fit the GPUs' memory, are listed in cannot_run with the reason (and
/// for memory, what would make them fit): advise answers whenever the run's shape is valid.
AdviseReport advise(const AdviseRequest& request);

/// `advise --format json`'s document.
nlohmann::json to_json(const AdviseReport& report);

} // namespace ccsim::api
