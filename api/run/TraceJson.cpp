// Chrome trace events and link load over time from the step engine's recording.
#include "api/run/TraceJson.hpp"

#include <fmt/format.h>

#include <map>

namespace ccsim::api {

namespace {
constexpr double US = 1e6;

/// "nic3_UP" -> {"nic3", "up"}: one counter track per link, one series per direction.
std::pair<std::string, std::string> link_and_direction(const std::string& name)
{
  for (const char* suffix : {"_UP", "_DOWN"}) {
    const std::string s = suffix;
    if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0)
      return {name.substr(0, name.size() - s.size()), s == "_UP" ? "up" : "down"};
  }
  return {name, "load"};
}
} // namespace

nlohmann::json trace_events(const sim::StepTrace& trace)
{
  nlohmann::json events = nlohmann::json::array();
  const char* unit      = trace.per_node ? "node" : "rank";
  for (std::size_t p = 0; p < trace.phases.size(); ++p) {
    const int pid = static_cast<int>(p) + 1;
    events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", pid}, {"args", {{"name", "phase " + trace.phases[p]}}}});
    events.push_back({{"name", "process_sort_index"}, {"ph", "M"}, {"pid", pid}, {"args", {{"sort_index", pid}}}});
    for (int t = 0; t < trace.tracks; ++t) {
      events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", pid}, {"tid", 2 * t},
                        {"args", {{"name", fmt::format("{} {}", unit, t)}}}});
      events.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", pid}, {"tid", 2 * t}, {"args", {{"sort_index", 2 * t}}}});
    }
  }
  std::map<std::pair<int, int>, bool> send_lanes; // (phase, track) pairs that have sends: name their thread once
  for (const auto& s : trace.spans) {
    const int pid    = s.phase + 1;
    const int tid    = 2 * s.track + s.lane;
    const double t0  = trace.phase_start_s[static_cast<std::size_t>(s.phase)];
    events.push_back({{"name", s.name}, {"cat", s.category}, {"ph", "X"}, {"pid", pid}, {"tid", tid},
                      {"ts", (s.start_s - t0) * US}, {"dur", (s.end_s - s.start_s) * US}});
    if (s.lane == 1 && !send_lanes[{s.phase, s.track}]) {
      send_lanes[{s.phase, s.track}] = true;
      events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", pid}, {"tid", tid},
                        {"args", {{"name", fmt::format("{} {} sends", unit, s.track)}}}});
    }
  }
  // Counters: each link's utilisation during each op, as a step function (a value at each interval's start, back
  // to 0 at the phase's last interval end).
  for (std::size_t i = 0; i < trace.link_intervals.size(); ++i) {
    const auto& iv  = trace.link_intervals[i];
    const int pid   = iv.phase + 1;
    const double t0 = trace.phase_start_s[static_cast<std::size_t>(iv.phase)];
    const double dt = iv.end_s - iv.start_s;
    std::map<std::string, nlohmann::json> by_link;
    for (std::size_t l = 0; l < trace.links.size(); ++l) {
      const auto [link, dir] = link_and_direction(trace.links[l]);
      by_link[link][dir]     = dt > 0 ? iv.bytes[l] / (trace.link_bytes_per_s[l] * dt) : 0.0;
    }
    const bool last_of_phase = i + 1 == trace.link_intervals.size() || trace.link_intervals[i + 1].phase != iv.phase;
    for (const auto& [link, values] : by_link) {
      events.push_back({{"name", link + " utilisation"}, {"ph", "C"}, {"pid", pid}, {"ts", (iv.start_s - t0) * US},
                        {"args", values}});
      if (last_of_phase) {
        nlohmann::json zero = values;
        for (auto& v : zero)
          v = 0.0;
        events.push_back({{"name", link + " utilisation"}, {"ph", "C"}, {"pid", pid}, {"ts", (iv.end_s - t0) * US},
                          {"args", zero}});
      }
    }
  }
  return {{"traceEvents", events},
          {"displayTimeUnit", "ms"},
          {"otherData", {{"generator", "ccsim simulate --trace"}, {"tracks", trace.per_node ? "one per node (its first GPU)" : "one per rank"}}}};
}

nlohmann::json links_over_time(const sim::StepTrace& trace)
{
  nlohmann::json intervals = nlohmann::json::array();
  for (const auto& iv : trace.link_intervals) {
    const double dt = iv.end_s - iv.start_s;
    nlohmann::json utilisation = nlohmann::json::array();
    for (std::size_t l = 0; l < trace.links.size(); ++l)
      utilisation.push_back(dt > 0 ? iv.bytes[l] / (trace.link_bytes_per_s[l] * dt) : 0.0);
    intervals.push_back({{"phase", trace.phases[static_cast<std::size_t>(iv.phase)]},
                         {"op", iv.op},
                         {"start_s", iv.start_s},
                         {"end_s", iv.end_s},
                         {"bytes", iv.bytes},
                         {"utilisation", utilisation}});
  }
  return {{"links", trace.links}, {"capacity_bytes_per_s", trace.link_bytes_per_s}, {"intervals", intervals}};
}

} // namespace ccsim::api
