// Context parallelism's K,V ring in the step (RingAttentionOps.hpp): measured rounds, charged by the closed form.
#include "sim/step/RingAttentionOps.hpp"

#include "sim/step/PhaseOps.hpp"

#include <variant>

namespace sg4 = simgrid::s4u;

namespace ccsim::sim {

void measure_ring_rounds(StepContext& c)
{
  const auto progress = std::move(c.on_progress); // the measurement's messages are not the step's
  c.on_progress       = nullptr;
  for (const auto& phase : c.plan->phases)
    for (const auto& op : phase.ops) {
      const auto* comm = std::get_if<CommOp>(&op);
      if (comm == nullptr || !comm->ring)
        continue;
      for (const std::uint64_t bytes : {comm->ring->kv_block_bytes, 2 * comm->ring->kv_block_bytes})
        if (c.ring_rounds.count(bytes) == 0) {
          MeasuredRound& m = c.ring_rounds[bytes];
          m.seconds        = measure_collective(c, *comm, bytes, m.traffic);
        }
    }
  c.on_progress   = progress;
  c.last_sample_s = sg4::Engine::get_clock(); // the measurement is no part of any phase's link intervals
}

double run_ring_attention(StepContext& c, const CommOp& op, PhaseReport& r)
{
  const RingAttention& ring = *op.ring;
  const MeasuredRound& one  = c.ring_rounds.at(ring.kv_block_bytes);
  const MeasuredRound& two  = c.ring_rounds.at(2 * ring.kv_block_bytes);
  count_traffic(c, one.traffic, ring.one_block_rounds());
  count_traffic(c, two.traffic, ring.two_block_rounds());
  // One layer of one micro-batch, then every layer of the stage and every micro-batch of the step alike.
  const RingExposure layer = ring_attention_exposure(ring.cp, one.seconds, two.seconds, c.compute.attention_forward_s,
                                                     c.compute.attention_backward_s, ring.recompute);
  // The pipeline's fill and drain pay what each micro-batch exposes too (in_layer_bubble_share, PhaseOps.hpp).
  const double times = static_cast<double>(ring.layers * ring.micro_batches) *
                       (1 + in_layer_bubble_share(c.shape, GroupKind::CONTEXT_PARALLEL));
  const double exposed = layer.exposed_s * times;
  r.comm_s += layer.comm_s * times;
  r.exposed_comm_s += exposed;
  if (exposed > 0)
    sg4::this_actor::sleep_for(exposed);
  return exposed;
}

} // namespace ccsim::sim
