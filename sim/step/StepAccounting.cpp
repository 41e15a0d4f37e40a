// Byte and message accounting of the step engine. Every message is counted where it is sent, even when a symmetric
// round simulates only some of them (sim/step/FlowRounds.cpp), so the totals are those of the whole cluster.
#include "sim/step/StepAccounting.hpp"

#include <algorithm>

namespace sg4 = simgrid::s4u;

namespace ccsim::sim {

namespace {
/// Counts `n` more messages simulated, and tells the progress callback every kProgressEvery of them.
void note_events(StepContext& c, std::uint64_t n)
{
  const std::uint64_t before = c.events;
  c.events += n;
  if (c.on_progress && before / kProgressEvery != c.events / kProgressEvery)
    c.on_progress(c.events);
}

/// Adds a flow's bytes to every tracked link on its route. Counted here rather than read from SimGrid's link-load
/// plugin, whose cumulated load also integrates the latency phase of each flow (a few kB per message, and more under
/// sharing), so the per-op bytes would not add up to the bytes the collective sent.
void count_link_bytes(StepContext& c, int src, int dst, std::uint64_t bytes)
{
  const auto key = std::make_pair(c.platform.node_of(src), c.platform.node_of(dst));
  auto it        = c.routes.find(key);
  if (it == c.routes.end()) {
    std::vector<sg4::Link*> route;
    double latency = 0;
    c.platform.gpu(src)->route_to(c.platform.gpu(dst), route, &latency);
    std::vector<std::size_t> crossed;
    for (auto* link : route)
      for (std::size_t i = 0; i < c.tracked.size(); ++i)
        if (c.tracked[i] == link)
          crossed.push_back(i);
    it = c.routes.emplace(key, std::move(crossed)).first;
  }
  for (const std::size_t i : it->second)
    c.link_bytes[i] += static_cast<double>(bytes);
}
} // namespace

void count_messages(StepContext& c, int src, int dst, std::uint64_t bytes, std::uint64_t count)
{
  const bool inter = c.platform.node_of(src) != c.platform.node_of(dst);
  (inter ? c.inter_bytes : c.intra_bytes) += static_cast<double>(bytes) * static_cast<double>(count);
  note_events(c, count);
  if (inter && !c.tracked.empty())
    count_link_bytes(c, src, dst, bytes * count);
}

void track_links(StepContext& c)
{
  std::vector<sg4::Link*> links = c.platform.node_links;
  links.insert(links.end(), c.platform.fabric_links.begin(), c.platform.fabric_links.end());
  for (auto* l : links) // every one split-duplex (sim/platform/Platform.cpp): its two halves, up first
    if (const auto* both = dynamic_cast<const sg4::SplitDuplexLink*>(l)) {
      c.tracked.push_back(both->get_link_up());
      c.tracked.push_back(both->get_link_down());
    }
  c.link_bytes.assign(c.tracked.size(), 0.0);
  c.last_load.assign(c.tracked.size(), 0.0);
}

std::vector<LinkReport> busiest_links(const StepContext& c, std::size_t most)
{
  std::vector<LinkReport> links;
  const double now = sg4::Engine::get_clock();
  for (std::size_t i = 0; i < c.tracked.size(); ++i) {
    const double bytes = c.link_bytes[i];
    links.push_back({c.tracked[i]->get_name(), bytes, now > 0 ? bytes / (c.tracked[i]->get_bandwidth() * now) : 0});
  }
  std::sort(links.begin(), links.end(), [](const auto& a, const auto& b) { return a.bytes > b.bytes; });
  if (links.size() > most)
    links.resize(most);
  return links;
}

} // namespace ccsim::sim
