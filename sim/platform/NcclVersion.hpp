#pragma once
// Which of NCCL's algorithms and protocols a given NCCL release has, from NVIDIA/nccl's release commits: the tree for
// all-reduce from 2.4.2 ("Add tree algorithms for allreduce"), LL128 from 2.5.6 ("Add LL128 Protocol", with the
// model-based tuner ccsim emulates), NVLS from 2.17.1 ("Add new NVLS algorithm for allreduce using NVLink SHARP
// (intra-node only)"), NVLS-Tree from 2.18.1 ("Add NVLS+Tree algorithm"). A topology that states no version runs the
// newest (every algorithm its hardware has); `calibrate --nccl-tests` takes the version a log's banner states.
// This header is the version itself; NcclConfig.hpp declares what a release runs (release_has, added_in).

#include <optional>
#include <string>

namespace ccsim::sim {

struct NcclVersion {
  int major = 2, minor = 0, patch = 0;
  /// "2.18.1": what a topology's nccl.version holds.
  std::string text() const;
  bool at_least(int mj, int mn, int pt) const;
};

/// "2.26.6", "2.26.6+cuda12.8", "2.18.1-1" or "2.18" (patch 0); nullopt for anything else, or a major other than 2.
std::optional<NcclVersion> parse_nccl_version(const std::string& text);

} // namespace ccsim::sim
