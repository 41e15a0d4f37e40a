#pragma once
// The last steps of `advise` (api/advise/Advisor.hpp): each algorithm's row from its fastest simulation, then its
// convergence evidence (api/advise/ConvergenceEvidence.hpp) and time-to-accuracy, then the ranking.

#include "api/advise/Advisor.hpp"
#include "api/advise/ConvergenceEvidence.hpp"

#include <string>
#include <vector>

namespace ccsim::api {

/// The row of `algorithm` at its fastest simulation `best`: throughput and its likely range, time per epoch of
/// `epoch_samples`, speedup over `baseline_samples_per_s` (0: none), bytes, memory and split.
RankedAlgorithm ranked_row(const std::string& algorithm, const SimulationReport& best, double baseline_samples_per_s,
                           double epoch_samples);

/// Adds the evidence of `row`'s algorithm: its verdict over every evidence row (yes when all say yes, no when all say
/// no, uncertain otherwise), each row's summary, the steps ratio of a transformer row before the mlp's, and with it
/// the time-to-accuracy: steps_ratio epochs at the row's own rate. Without evidence the row is left as it is.
void add_evidence(RankedAlgorithm& row, const std::vector<EvidenceRow>& evidence, double epoch_samples);

/// Orders `ranking`: converging algorithms by time-to-accuracy, then uncertain ones (seeds or proxies disagree) by
/// time-to-accuracy, then those without evidence, then those that do not converge (each of the last two groups by
/// throughput); and gives each its place by throughput alone.
void rank(std::vector<RankedAlgorithm>& ranking);

} // namespace ccsim::api
