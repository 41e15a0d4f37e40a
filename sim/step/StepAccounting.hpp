#pragma once
// Internal to the step engine: what a simulated step sent — bytes inside and across nodes, the messages simulated
// (with the progress callback), and the bytes each tracked NIC or fabric link carried (`simulate --links`).

#include "sim/step/StepContext.hpp"

#include <cstdint>
#include <vector>

namespace ccsim::sim {

/// Accounts `count` messages of `bytes` each from rank `src` to rank `dst`: bytes inside or across nodes, the event
/// count (telling StepContext::on_progress every kProgressEvery messages), the tracked links on their route.
void count_messages(StepContext& c, int src, int dst, std::uint64_t bytes, std::uint64_t count);

/// Tracks every NIC and fabric link, each direction of its split-duplex pair ("nic3_UP", "nic3_DOWN"), from zero.
void track_links(StepContext& c);

/// The `most` tracked links that carried the most bytes so far, busiest first, with their utilisation over the
/// simulated time until now.
std::vector<LinkReport> busiest_links(const StepContext& c, std::size_t most);

} // namespace ccsim::sim
