#pragma once
// `advise --search` prunes before it simulates. Each candidate is resolved as `simulate` would resolve it (every
// check, the memory model, the plan) without simulating, which sorts it into one of three:
//  - it cannot run: a bad shape (the child would say why) or one that does not fit the GPUs' memory even with
//    activation recomputation (pruned by memory);
//  - it can run, with a lower bound on its step time that needs no simulation: its compute alone. Every phase of a
//    step runs each micro-batch's forward and backward on every GPU one after another (sim/schedule/DataParallelStep.cpp), and a
//    pipelined phase cannot finish before the GPipe bound (m + pp - 1)(f + b): the last stage starts its first forward
//    after pp - 1 forwards upstream, runs its m forwards and m backwards, and the first stage's last backward comes
//    pp - 1 backwards after (sim/schedule/PipelineSchedule.cpp, stage_actor); with vpp chunks per stage (interleaved
//    1F1B) the same argument over m x vpp chunks of 1/vpp of the work gives (m + (pp - 1) / vpp)(f + b). After it a
//    phase runs, one after another and beside nothing, its collectives that are not hidden under compute (the
//    tensor-parallel all-reduces without --tp-overlap, a compressed algorithm's exchange, a gradient reduction not
//    bucketed), its compression kernels and its optimizer (sim/step/PhaseOps.cpp, run_ops): each collective at least
//    its rounds' busiest port at full rate (every byte of a GPU crosses its port to the node's switch, every byte
//    between nodes both nodes' uplinks), the kernels and the optimizer their closed forms. So a phase takes at least
//    compute + those, and a step's time is a mean of its phases' weighted by their shares of steps
//    (api/run/Simulation.cpp), so the bound holds for the mean too. A phase also takes at least the time its busiest
//    node's NIC needs, at full rate, for all the inter-node bytes the phase sends through it (a bound whatever
//    overlaps what).
// A candidate whose bound is already slower than the best simulated split of its algorithm can never be chosen, so it
// is never simulated: the pruned search returns the same best as the exhaustive one.
//
// Recomputation (issue 49): where the search chooses it (no --recompute given), each candidate is resolved with the
// lightest mode that fits its GPUs' memory, in the order none, selective (a workload with an architecture: the
// attention core), full. A lighter mode reruns less of the forward pass and never stores less, so at the same split it
// is never slower (sim/compute/TransformerOps: selective adds the attention core's FLOPs, full the whole forward's):
// the heavier modes of a split that fits with a lighter one are dominated and never simulated.

#include "api/run/ResolvedRun.hpp"
#include "api/run/SimulateRequest.hpp"

#include <string>

namespace ccsim::api {

struct ShapeTriage {
  enum class Kind { RUNS, NO_MEMORY, INVALID };
  Kind kind = Kind::RUNS;
  std::string why;             // NO_MEMORY / INVALID: the one-line problem `simulate` would report
  double bound_s = 0;          // RUNS: no step of this shape takes less (seconds)
  double samples = 0;          // RUNS: its global batch
  bool recompute = false;      // RUNS: it fits only with activation recomputation
  std::optional<std::string> recompute_mode; // RUNS, with search_recompute: the lightest mode that fits, to simulate
  /// The most samples/s this shape could reach.
  double max_samples_per_s() const { return bound_s > 0 ? samples / bound_s : 0; }
};

/// Resolves `request` (through `cache`) and sorts it as above; with `search_recompute` (and no request.recompute), at
/// the lightest recomputation mode that fits.
ShapeTriage triage_shape(const SimulateRequest& request, InputCache& cache, bool search_recompute = false);

/// The compute-only lower bound of a resolved run's step (seconds), as ShapeBound.hpp derives it; 0 (no bound) with
/// stragglers.
double compute_lower_bound_s(const ResolvedRun& run);
/// The step's lower bound: per phase the larger of its compute bound plus what runs by itself after it, and the
/// seconds its busiest NIC needs at full rate for the phase's inter-node bytes (collectives and pipeline sends),
/// weighted by the phases' shares of steps.
double step_lower_bound_s(const ResolvedRun& run);

} // namespace ccsim::api
