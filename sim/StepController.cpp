// The controller actor's two programs: a training step phase by phase (simulate_step) and a list of collective calls
// timed one by one (simulate_calls). A phase's time is the simulated clock from its first compute to its last op.
#include "sim/StepController.hpp"

#include "sim/DataParallelStep.hpp"
#include "sim/PhaseOps.hpp"
#include "sim/PipelineSchedule.hpp"
#include "sim/TraceRecording.hpp"

#include <xbt/log.h>

#include <algorithm>
#include <variant>

XBT_LOG_NEW_DEFAULT_CATEGORY(ccsim_step, "ccsim step engine");

namespace sg4 = simgrid::s4u;

namespace ccsim::sim {

void run_phases(StepContext& c)
{
  for (const auto& phase : c.plan->phases) {
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
      const double pipe_time = sg4::Engine::get_clock() - t0;
      r.exposed_comm_s = std::max(0.0, pipe_time - r.compute_s - r.compression_s);
    } else {
      run_data_parallel_compute(c, phase, r);
    }
    run_ops(c, phase.ops, r, /*overlapped=*/false);
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
