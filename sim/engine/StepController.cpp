// The controller actor's two programs: a training step phase by phase (simulate_step) and a list of collective calls
// timed one by one (simulate_calls). A phase's time is the simulated clock from its first compute to its last op.
#include "sim/engine/StepController.hpp"

#include "sim/schedule/DataParallelStep.hpp"
#include "sim/schedule/OverlappedComm.hpp"
#include "sim/step/PhaseOps.hpp"
#include "sim/step/RingAttentionOps.hpp"
#include "sim/schedule/PipelineCriticalPath.hpp"
#include "sim/schedule/PipelineSchedule.hpp"
#include "sim/step/TraceRecording.hpp"

#include <xbt/log.h>

#include <algorithm>
#include <variant>

XBT_LOG_NEW_DEFAULT_CATEGORY(ccsim_step, "ccsim step engine");

namespace sg4 = simgrid::s4u;

namespace ccsim::sim {

void run_phases(StepContext& c)
{
  measure_hidden_ops(c);
  measure_ring_rounds(c);
  for (const auto& phase : c.plan->phases) {
    if (c.platform.out_of_slots)
      return; // its hosts are wrong from here: the step runs again on every node (Platform::slots)
    PhaseReport r;
    r.name          = phase.name;
    r.fraction      = phase.fraction;
    const double t0 = sg4::Engine::get_clock();
    c.phase_index   = static_cast<int>(c.trace->phases.size());
    c.trace->phases.push_back(phase.name);
    c.trace->phase_start_s.push_back(t0);
    sample_links(c, "(between phases)"); // starts this phase's first interval at t0
    const double in0 = c.inter_bytes, intra0 = c.intra_bytes;
    if (phase.pipeline) {
      run_pipeline(c, phase, r);
      sample_links(c, "pipeline");
      // Exposed: the time beyond the schedule's comm-free critical path (its bubble included), at most the sends.
      const double pipe_time = sg4::Engine::get_clock() - t0;
      r.exposed_comm_s       = std::clamp(pipe_time - comm_free_pipeline_s(c, phase), 0.0, r.comm_s);
      // Hidden collectives run under the first stage's first forward and last backward (its own stage's times).
      const auto exposure = charge_hidden_ops(c, c.phase_index, c.compute.forward_s, c.compute.backward_s, r);
      record_hidden_spans(c, c.phase_index, t0, sg4::Engine::get_clock() - c.compute.backward_s);
      if (exposure.total() > 0)
        sg4::this_actor::sleep_for(exposure.total());
      r.exposed_comm_s += exposure.total();
    } else {
      run_data_parallel_compute(c, c.phase_index, r);
    }
    run_ops(c, phase.ops, r);
    // Each part above is at most its own communication time, so exposed <= comm; the bound holds exactly.
    r.exposed_comm_s = std::min(r.exposed_comm_s, r.comm_s);
    r.step_time_s              = sg4::Engine::get_clock() - t0;
    r.inter_node_bytes_per_gpu = (c.inter_bytes - in0) / c.shape.gpus;
    r.intra_node_bytes_per_gpu = (c.intra_bytes - intra0) / c.shape.gpus;
    XBT_DEBUG("phase %s: %g s", phase.name.c_str(), r.step_time_s);
    c.reports.push_back(r);
  }
}

void time_calls(StepContext& c, const std::vector<std::vector<Op>>& calls, bool with_kernels,
                std::vector<double>& seconds)
{
  for (const auto& call : calls) {
    const double t0 = sg4::Engine::get_clock();
    for (const auto& op : call) {
      if (const auto* comm = std::get_if<CommOp>(&op))
        run_collective(c, *comm);
      else if (const auto* k = std::get_if<KernelOp>(&op); k != nullptr && with_kernels)
        sg4::this_actor::sleep_for(kernel_seconds(*c.topo, *k));
    }
    seconds.push_back(sg4::Engine::get_clock() - t0);
  }
}

} // namespace ccsim::sim
