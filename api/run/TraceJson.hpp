#pragma once
// sim::StepTrace as JSON: Chrome trace events for `simulate --trace FILE` (opens in Perfetto and
// chrome://tracing) and the per-link load over time that `simulate --links` adds to its document.

#include "sim/step/StepTrace.hpp"

#include <nlohmann/json.hpp>

namespace ccsim::api {

/// The trace-event document (Trace Event Format, "JSON Object Format"): one process per phase, one thread per rank
/// (or node) plus one for its pipeline sends, complete ("X") events in microseconds from the phase's start, and
/// counter ("C") tracks of each NIC's utilisation (up and down) per op.
nlohmann::json trace_events(const sim::StepTrace& trace);

/// {"links": [...], "capacity_bytes_per_s": [...], "intervals": [{"phase", "op", "start_s", "end_s", "bytes": [...],
/// "utilisation": [...]}]}: every NIC and fabric link (each direction), per op, times on the simulated clock.
nlohmann::json links_over_time(const sim::StepTrace& trace);

} // namespace ccsim::api
