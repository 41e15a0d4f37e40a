// The data-parallel step. Every rank does the same work at the same time, so one actor's clock stands for all of
// them: the micro-batches are one sleep, and the collectives hidden under them add only what they leave exposed
// (sim/schedule/OverlappedComm.hpp).
#include "sim/schedule/DataParallelStep.hpp"

#include "sim/schedule/OverlappedComm.hpp"
#include "sim/step/TraceRecording.hpp"

#include <fmt/format.h>

#include <algorithm>

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

void run_data_parallel_compute(StepContext& c, int phase_index, PhaseReport& r)
{
  const int accum = std::max(1, c.shape.grad_accumulation);
  const double f = c.compute.forward_s, b = c.compute.backward_s;
  r.compute_s    = accum * (f + b);
  // Hidden collectives (sim/schedule/OverlappedComm.hpp): weights the first forward pass waits for, gradients the last
  // backward pass leaves unreduced. Without any, the step runs as two sleeps.
  const auto exposure = charge_hidden_ops(c, phase_index, f, b, r);
  const double t0     = sg4::Engine::get_clock();
  if (exposure.before_forward_s > 0)
    sg4::this_actor::sleep_for(exposure.before_forward_s);
  const double compute0 = sg4::Engine::get_clock();
  record_micro_batches(c, compute0, accum, f, b);
  record_hidden_spans(c, phase_index, t0, compute0 + (accum - 1) * (f + b) + f);
  sg4::this_actor::sleep_for((accum - 1) * (f + b) + f);
  // What the tensor-parallel collectives beside their GEMMs leave exposed lengthens the passes; one sleep holds it.
  sg4::this_actor::sleep_for(b + exposure.after_backward_s + exposure.beside_gemms_s);
  sample_links(c, "compute");
  r.exposed_comm_s += exposure.total();
}

} // namespace ccsim::sim
