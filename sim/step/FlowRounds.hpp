#pragma once
// Internal to the step engine: runs one round of a collective's schedule — flows all started at the same simulated
// instant, waited for together — on the platform, taking the cheapest path that gives the same time.

#include "sim/collective/Collectives.hpp"
#include "sim/step/StepContext.hpp"

namespace ccsim::sim {

/// Sends every flow of `round` from the calling actor and returns when the last one arrives; every flow is counted
/// (sim/step/StepAccounting.hpp) whether or not it is simulated on its own.
void run_round(StepContext& c, const Round& round);

} // namespace ccsim::sim
