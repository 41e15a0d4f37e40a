#pragma once
// The first steps of `advise` (api/advise/Advisor.hpp): which family of algorithms suits the workload and its
// uncompressed baseline, then every (algorithm, split) to simulate: the run's split (or the one the --tp / --pp filters
// give), or with search every candidate of api/advise/ShapeSearch.hpp the filters allow, all at one global batch.

#include "api/advise/Advisor.hpp"
#include "sim/model/Workload.hpp"

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace ccsim::api {

/// One configuration to simulate for an algorithm.
struct AdviseCandidate {
  std::string algorithm;
  SimulateRequest request;
};

struct AdviseCandidates {
  std::vector<std::string> algorithms; // those ranked, in the registry's order
  std::string baseline;                // the family's uncompressed algorithm (speedups are over it)
  bool search   = false;
  bool filtered = false;               // --tp / --pp restrict the splits
  SimulateRequest shape;               // the run's shape, with the filters' split when not searching
  /// In candidate order; without search one per algorithm, the baseline's first (a bad configuration shows up on it,
  /// as the one-line error the user needs).
  std::vector<AdviseCandidate> list;
  std::map<std::string, std::size_t> splits; // with search: each algorithm's number of candidates
};

/// The candidates of `request` for `work` (already loaded). Flags that contradict each other or the cluster (a
/// micro-batch with search, several splits without it, a --tp / --pp value that cannot apply) are io::InputError.
AdviseCandidates advise_candidates(const AdviseRequest& request, const sim::Workload& work);

} // namespace ccsim::api
