#pragma once
// The simulation step of `advise` (api/advise/Advisor.hpp): every candidate (api/advise/AdviseCandidates.hpp) is
// simulated, set aside (with search: it cannot run, or its bound says it cannot be its algorithm's fastest,
// api/advise/ShapeBound.hpp) or left to the time limit, and each algorithm keeps its fastest simulation.
//
// Without search the baseline runs first and alone, so that a bad configuration is its one-line error; then every
// other algorithm at once through the process pool. With search, candidates go through the pool in waves of about
// `jobs`, the next ones of each algorithm by increasing bound, so that each wave's results tighten the pruning of the
// next.

#include "api/advise/AdviseCandidates.hpp"
#include "api/run/SimulationReport.hpp"

#include <cstddef>
#include <map>
#include <optional>
#include <string>

namespace ccsim::api {

/// What became of one algorithm's candidates.
struct AlgorithmOutcome {
  /// Its fastest simulation, preferring one that fits without activation recomputation: ccsim's compute times come
  /// from the papers' runs (profiles, fitted FLOP/s) and do not price a recomputed forward pass, so a split that needs
  /// one is chosen only when no split of the algorithm fits without it. Ties go to the earlier candidate.
  std::optional<SimulationReport> best;
  std::size_t best_at = 0;             // that simulation's place among the candidates
  std::optional<std::string> why_not;  // why a candidate of it could not run (the last one's reason)
  std::size_t splits_that_run = 0;     // simulated, or pruned by bound (it would run, only slower)
};

struct AdviseSimulation {
  std::map<std::string, AlgorithmOutcome> by_algorithm;
  SearchCounts counts;
  bool partial = false; // the time limit ended it early
};

/// Simulates `candidates` of `workload` (its name, for progress) as above. A crashed simulation is a
/// std::runtime_error; a signal stops it with RunStopped.
AdviseSimulation simulate_candidates(const AdviseRequest& request, const AdviseCandidates& candidates,
                                     const std::string& workload);

} // namespace ccsim::api
