#pragma once
// Internal to the step engine: fills the StepTrace of `simulate --trace` and `--links` as the step runs — spans per
// rank (or per node beyond StepTrace::kMaxRankTracks ranks) and, per op, the bytes each tracked link carried.
// Every function does nothing unless that recording was asked for.

#include "sim/step/StepContext.hpp"

#include <string>

namespace ccsim::sim {

/// A span from t0 to t1 on the track of `rank` (none when the rank has no track of its own), on `lane` (1: sends).
void span_rank(StepContext& c, int rank, std::string name, const char* category, double t0, double t1, int lane = 0);

/// A span on every track: the data-parallel engine runs every rank in lockstep (lane 1: communication under compute).
void span_all(StepContext& c, const std::string& name, const char* category, double t0, double t1, int lane = 0);

/// Closes a link interval at the current clock: the bytes each tracked link carried since the last sample.
void sample_links(StepContext& c, const std::string& op);

/// Records one op that ran from t0 to now on every rank.
void record_op(StepContext& c, const std::string& name, const char* category, double t0);

} // namespace ccsim::sim
