#pragma once
// What `advise` says of an algorithm that cannot run because it does not fit the GPUs' memory (issue 44: advise always
// answers). Such an algorithm is listed after the ranking, with the memory it needs and the changes of its own options
// that would make it fit: each change is resolved as `simulate` would resolve it (every check and the memory model,
// api/run/ResolvedRun.hpp), never simulated, so a change offered is one that `simulate` accepts.
//
// A change is written with the library's option references ("--tp 2 --recompute full"); each front end spells them
// as its own (api/options/OptionSpelling.hpp: Python reads "tp=2 recompute=full").

#include "api/run/ResolvedRun.hpp"
#include "api/run/SimulateRequest.hpp"

#include <optional>
#include <string>
#include <vector>

namespace ccsim::api {

/// One change of a run's options that makes it fit, and the GB per GPU it then needs.
struct MemoryFix {
  std::string change; // option references, e.g. "--tp 2" or "--pp 2 --recompute full"
  double memory_gb_per_gpu = 0;
  bool recompute           = false; // it fits only with activation recomputation
};

/// A run refused for memory: what it needs and what the GPU has (gpu.memory_gb less its headroom).
struct MemoryShortfall {
  double memory_gb_per_gpu = 0; // with activation recomputation when it would need it (what it was refused for)
  double usable_gb         = 0;
  bool recompute           = true; // judged with activation recomputation (false: --recompute none asked for)
  int tp = 1, pp = 1;
  std::uint64_t micro_batch = 1;
  int gpus_per_node = 1, gpus = 1;
  int zero_stage = 0;                   // the ZeRO stage it was refused at
  std::vector<int> higher_zero_stages;  // the stages above it its algorithm runs (its descriptor's zero_stages)
};

/// The shortfall of `request` when `simulate` refuses it for memory alone (it resolves with --allow-oom); empty when
/// it runs, or is refused for another reason.
std::optional<MemoryShortfall> memory_shortfall(const SimulateRequest& request, InputCache& cache);

/// "needs 58.7 GB per GPU at tp 1 pp 1, micro-batch 1, even with activation recomputation; 40 GB are usable": what
/// advise says of a run refused for memory (simulate's own message ends in options advise does not have).
std::string describe(const MemoryShortfall& shortfall);

/// Up to `most` changes that make `request` fit (it has `shortfall`), simplest first: activation recomputation, a
/// micro-batch of 1, a higher ZeRO stage the algorithm runs (it keeps the split), then tp and pp raised by powers of
/// two (tp within a node), fewest GPUs per model copy first, each alone, then with a micro-batch of 1, then with
/// recomputation. A change that asks at least as much as one already offered is left out. Empty when none of them
/// fits.
std::vector<MemoryFix> memory_fixes(const SimulateRequest& request, const MemoryShortfall& shortfall,
                                    InputCache& cache, std::size_t most = 3);

} // namespace ccsim::api
