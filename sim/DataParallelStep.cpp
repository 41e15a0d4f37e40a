// The data-parallel step. Every rank does the same work at the same time, so one actor's clock stands for all of
// them: the micro-batches are one sleep, and only the overlapped backward pass needs an activity of its own (a timer
// the flagged collectives run against).
#include "sim/DataParallelStep.hpp"

#include "sim/PhaseOps.hpp"
#include "sim/TraceRecording.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <variant>

namespace sg4 = simgrid::s4u;

namespace ccsim::sim {

namespace {
/// Compute spans of a data-parallel step starting at t0: forward and backward of each micro-batch (the first 16
/// one by one, the rest as one span, so a 1,000-step accumulation stays a small trace).
void record_micro_batches(StepContext& c, double t0, int accum, double f, double b)
{
  constexpr int SPANNED = 16;
  for (int i = 0; i < std::min(accum, SPANNED); ++i) {
    const double start = t0 + i * (f + b);
    span_all(c, fmt::format("forward {}", i + 1), "compute", start, start + f);
    span_all(c, fmt::format("backward {}", i + 1), "compute", start + f, start + f + b);
  }
  if (accum > SPANNED)
    span_all(c, fmt::format("forward+backward {}-{}", SPANNED + 1, accum), "compute", t0 + SPANNED * (f + b),
             t0 + accum * (f + b));
}
} // namespace

void run_data_parallel_compute(StepContext& c, const PhasePlan& phase, PhaseReport& r)
{
  const int accum = std::max(1, c.shape.grad_accumulation);
  const double f = c.compute.forward_s, b = c.compute.backward_s;
  r.compute_s    = accum * (f + b);
  record_micro_batches(c, sg4::Engine::get_clock(), accum, f, b);
  sg4::this_actor::sleep_for((accum - 1) * (f + b) + f);
  const bool any_overlap = std::any_of(phase.ops.begin(), phase.ops.end(), [](const Op& op) {
    const auto* comm = std::get_if<CommOp>(&op);
    return comm != nullptr && comm->overlap_backward;
  });
  if (!any_overlap) {
    sg4::this_actor::sleep_for(b);
    sample_links(c, "compute");
    return;
  }
  // The backward pass runs as a timer on the GPU while the flagged collectives go out (bucketed overlap).
  auto backward = sg4::Exec::init()->set_flops_amount(b * 1e9)->set_host(c.platform.gpus[0]);
  backward->start();
  const double comm = run_ops(c, phase.ops, r, /*overlapped=*/true);
  backward->wait();
  sample_links(c, "compute");
  r.exposed_comm_s += std::max(0.0, comm - b);
}

} // namespace ccsim::sim
