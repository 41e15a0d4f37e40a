#pragma once
// How many messages a simulation will send, known before it starts: the denominator of the progress line
// ("1234567/5000000 messages") and of its ETA. It counts what the step engine counts in StepReport::events.

#include "sim/collective/Collectives.hpp"
#include "sim/model/CommPlan.hpp"

#include <cstdint>
#include <vector>

namespace ccsim::sim {

/// Messages simulate_step() sends for `plan` on `topo`: every flow of every collective's schedule (each CommOp runs once
/// per phase; one hidden under compute, hidden_under_compute, once per bucket of its size), plus one message per
/// micro-batch per stage boundary per direction per pipeline chain.
std::uint64_t planned_messages(const StepPlan& plan, const StepShape& shape, Fidelity fidelity, const Topology& topo);

/// Messages simulate_calls() sends for `calls` on the cluster of `shape`.
std::uint64_t planned_messages(const std::vector<std::vector<Op>>& calls, const StepShape& shape, Fidelity fidelity,
                               const Topology& topo);

} // namespace ccsim::sim
