#pragma once
// When bucketed communication hidden under a compute pass finishes (docs/overlap.md). Pure arithmetic on times the
// step engine measured (sim/schedule/OverlappedComm.cpp), so the closed forms can be tested without a simulation.
//
// Two shapes, mirror images of one another:
// - Gradient reduction under the backward pass (PyTorch DDP, Megatron overlap_grad_reduce): the pass produces the
//   gradients at a uniform rate in bucket order, a bucket is reduced as soon as it is full, one at a time on one
//   communication stream. With K equal buckets of reduction time r under a pass of P seconds:
//     r <= P/K: the last bucket is ready at P and the stream is idle by then: exposed = r (the last bucket's);
//     r >  P/K: the stream never idles after the first bucket is ready at P/K: exposed = K r - (P - P/K).
//   In general exposed = max(0, finish - P) <= the buckets' total time.
// - Weight prefetch under the forward pass (Megatron overlap_param_gather, FSDP/ZeRO-3 forward prefetch): bucket k is
//   all-gathered one after another from the pass's start, and the pass's share of bucket k can start only once it is
//   there: r <= P/K gives exposed = r (the first bucket's), r > P/K gives K r - (P - P/K), the same closed forms.

#include <cstdint>
#include <vector>

namespace ccsim::sim {

/// An op split into buckets: `full` buckets of `bucket_bytes`, then one of `tail_bytes` (0: none).
struct Buckets {
  std::uint64_t full         = 0;
  std::uint64_t bucket_bytes = 0;
  std::uint64_t tail_bytes   = 0;
  std::uint64_t count() const { return full + (tail_bytes > 0 ? 1 : 0); }
  std::uint64_t total() const { return full * bucket_bytes + tail_bytes; }
};
/// `bytes` in buckets of at most `bucket_bytes` (> 0); one bucket when bytes <= bucket_bytes.
Buckets split_buckets(std::uint64_t bytes, std::uint64_t bucket_bytes);

/// One bucketed op with the simulated seconds of a full bucket and of the tail bucket.
struct BucketedOp {
  Buckets buckets;
  double full_s = 0;
  double tail_s = 0;
  /// Reductions: the share of the pass by which the op's last bucket is produced; its bytes come evenly before it.
  double produced_by = 1;
  double total_s() const { return static_cast<double>(buckets.full) * full_s + (buckets.tail_bytes > 0 ? tail_s : 0); }
};

/// Reductions under a backward pass of `pass_s`: when the last bucket's reduction ends, from the pass's start. Each
/// op's buckets become ready as the pass produces that op's bytes, evenly over the whole pass (a whole gradient) or
/// over its first `produced_by` share; the ops share one stream, in order.
double reduction_finish_s(double pass_s, const std::vector<BucketedOp>& ops);

/// Prefetched all-gathers under a forward pass of `pass_s`: when the pass ends, from its start, waiting for buckets
/// gathered one after another on one stream from the start.
double prefetch_finish_s(double pass_s, const std::vector<BucketedOp>& ops);

/// ZeRO-3 / FSDP: one forward or backward pass of `layers` equal layers (pass_s in all) with, per layer, a weight
/// all-gather of gather_s needed before the layer computes and a gradient reduction of reduce_s ready once it has
/// computed, on one communication stream in the order they are issued: layer 0's gather first, layer k + 1's gather
/// when layer k starts (the frameworks' prefetch of the next layer: FSDP's BACKWARD_PRE / forward_prefetch, DeepSpeed's
/// stage-3 prefetch bucket), layer k's reduction when it ends. Returns when the pass and its reductions end, from its
/// start. Closed forms with c = pass_s / layers and L = layers: gathers only, g <= c: g + pass_s (the first layer's
/// gather is exposed); g > c: L g + c; reductions only, r <= c: pass_s + r (the last layer's reduction is exposed).
double layered_pass_s(double pass_s, int layers, double gather_s, double reduce_s);

/// Context parallelism's ring attention, one layer of one micro-batch (sim/model/CommPlan.hpp, RingAttention): the
/// seconds its K,V rounds are in flight and what they leave exposed beyond the attention they run beside.
/// Transformer Engine (context_parallel.py, AttnFuncWithCPAndKVP2P) issues round i's send/recv on its own stream and
/// computes attention step i meanwhile; step i + 1 waits for both. Step 0 computes on the rank's own block, so no
/// round runs before the first step (there is no fill). With the attention of a pass split into cp equal steps of
/// a = attention_s / cp (Megatron's load-balanced causal split gives every step the same work), a round of r seconds
/// costs max(r, a) where the attention alone costs a, and exposes max(0, r - a):
/// - forward: cp - 1 rounds of one block (one_block_s) beside steps of a_f = attention_forward_s / cp;
/// - backward: 2 rounds of one block and cp - 2 of two (two_blocks_s) beside steps of a_b = attention_backward_s / cp;
/// - recomputation (`recompute`) runs the forward's rounds again beside the forward's steps.
struct RingExposure {
  double comm_s    = 0; // every round's seconds, hidden or not
  double exposed_s = 0; // what the attention does not hide
};
RingExposure ring_attention_exposure(int cp, double one_block_s, double two_blocks_s, double attention_forward_s,
                                     double attention_backward_s, bool recompute);

} // namespace ccsim::sim
