// The pipeline in closed form (sim/schedule/PipelineClosedForm.hpp): one round of concurrent sends per direction on
// SimGrid for the message times, the schedule's recurrence for the rest.
#include "sim/schedule/PipelineClosedForm.hpp"

#include "sim/schedule/PipelineCriticalPath.hpp"
#include "sim/schedule/PipelineSchedule.hpp"

#include <simgrid/s4u/Comm.hpp>

#include <algorithm>

namespace sg4 = simgrid::s4u;

namespace ccsim::sim {

namespace {
/// How long each stage's message in direction `dir` ('f' to the next stage, 'b' to the previous) takes when every
/// sending stage of every chain marked in `simulated` sends one at the same instant: [chain][stage], 0 where a stage
/// sends none in that direction or its chain is not simulated. Advances the clock by the slowest message.
std::vector<std::vector<double>> send_round(StepContext& c, const std::vector<std::vector<int>>& chains,
                                            const std::vector<char>& simulated, char dir, std::uint64_t payload)
{
  const int pp   = c.layout.pp;
  const bool fwd = dir == 'f';
  std::vector<std::vector<double>> seconds(chains.size(), std::vector<double>(static_cast<std::size_t>(pp), 0.0));
  std::vector<sg4::CommPtr> comms;
  std::vector<std::pair<std::size_t, int>> owner; // (chain, stage) of each comm
  const double t0 = sg4::Engine::get_clock();
  for (std::size_t chain = 0; chain < chains.size(); ++chain) {
    if (!simulated[chain])
      continue;
    const auto& ranks = chains[chain];
    for (int s = fwd ? 0 : 1; s < (fwd ? pp - 1 : pp); ++s) {
      const int src = ranks[static_cast<std::size_t>(s)], dst = ranks[static_cast<std::size_t>(fwd ? s + 1 : s - 1)];
      comms.push_back(sg4::Comm::sendto_async(c.platform.gpu(src),
                                              c.platform.gpu(dst),
                                              pipeline_wire_bytes(c, src, dst, payload)));
      owner.emplace_back(chain, s);
    }
  }
  if (!comms.empty())
    sg4::Comm::wait_all(comms);
  for (std::size_t i = 0; i < comms.size(); ++i)
    seconds[owner[i].first][static_cast<std::size_t>(owner[i].second)] = comms[i]->get_finish_time() - t0;
  return seconds;
}
} // namespace

bool pipeline_in_closed_form(const StepContext& c)
{
  return c.fidelity == Fidelity::FAST && !c.record_spans;
}

void run_pipeline_closed_form(StepContext& c, const PhasePlan& phase, const std::vector<std::vector<int>>& chains,
                              const std::vector<char>& simulated, double kernel_s, PhaseReport& r)
{
  const auto& pipe = *phase.pipeline;
  const double t0  = sg4::Engine::get_clock();
  const auto fw    = send_round(c, chains, simulated, 'f', pipe.forward_bytes_per_micro_batch);
  const auto bw    = send_round(c, chains, simulated, 'b', pipe.backward_bytes_per_micro_batch);
  const int units  = pipeline_units(c);
  double makespan  = 0;
  std::size_t first = chains.size();
  for (std::size_t chain = 0; chain < chains.size(); ++chain) {
    if (!simulated[chain])
      continue;
    first     = std::min(first, chain);
    auto work = chain_stage_work(c, chains[chain], kernel_s);
    work.send_forward_s  = fw[chain];
    work.send_backward_s = bw[chain];
    work.blocking_sends  = pipe.blocking_sends;
    makespan = std::max(makespan, pipeline_makespan_s(work, units));
  }
  // The two rounds above took the slowest forward plus the slowest backward message, less than any chain's makespan
  // (its critical path crosses every boundary both ways).
  sg4::this_actor::sleep_for(std::max(0.0, t0 + makespan - sg4::Engine::get_clock()));
  if (first < chains.size() && c.layout.pp > 1) {
    r.pipeline_forward_comm_s  = fw[first][0];
    r.pipeline_backward_comm_s = bw[first][1];
  }
}

} // namespace ccsim::sim
