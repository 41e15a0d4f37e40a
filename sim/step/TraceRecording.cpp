// Trace recording of the step engine. Link intervals are cut at op boundaries on the simulated clock, so each one
// says which op the bytes belong to; the bytes themselves are counted per flow (sim/step/StepAccounting.cpp).
#include "sim/step/TraceRecording.hpp"

namespace sg4 = simgrid::s4u;

namespace ccsim::sim {

namespace {
/// The track that stands for `rank`, or -1 when it has none (past kMaxRankTracks ranks, a node's first GPU only).
int track_of(const StepContext& c, int rank)
{
  if (!c.trace->per_node)
    return rank;
  return rank % c.topo->gpus_per_node == 0 ? rank / c.topo->gpus_per_node : -1;
}
} // namespace

void span_rank(StepContext& c, int rank, std::string name, const char* category, double t0, double t1, int lane)
{
  if (!c.record_spans)
    return;
  if (const int track = track_of(c, rank); track >= 0)
    c.trace->spans.push_back({c.phase_index, track, lane, std::move(name), category, t0, t1});
}

void span_all(StepContext& c, const std::string& name, const char* category, double t0, double t1, int lane)
{
  if (!c.record_spans)
    return;
  for (int track = 0; track < c.trace->tracks; ++track)
    c.trace->spans.push_back({c.phase_index, track, lane, name, category, t0, t1});
}

void sample_links(StepContext& c, const std::string& op)
{
  if (c.tracked.empty())
    return;
  const double now = sg4::Engine::get_clock();
  LinkInterval interval{c.phase_index, op, c.last_sample_s, now, {}};
  for (std::size_t i = 0; i < c.tracked.size(); ++i) {
    interval.bytes.push_back(c.link_bytes[i] - c.last_load[i]);
    c.last_load[i] = c.link_bytes[i];
  }
  c.last_sample_s = now;
  if (interval.end_s > interval.start_s)
    c.trace->link_intervals.push_back(std::move(interval));
}

void record_op(StepContext& c, const std::string& name, const char* category, double t0)
{
  span_all(c, name, category, t0, sg4::Engine::get_clock());
  sample_links(c, name);
}

} // namespace ccsim::sim
