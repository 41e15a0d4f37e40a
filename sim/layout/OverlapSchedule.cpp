// The bucket schedules of sim/layout/OverlapSchedule.hpp: one event per bucket, in order.
#include "sim/layout/OverlapSchedule.hpp"

#include <algorithm>

namespace ccsim::sim {

Buckets split_buckets(std::uint64_t bytes, std::uint64_t bucket_bytes)
{
  Buckets b;
  b.bucket_bytes = std::max<std::uint64_t>(1, bucket_bytes);
  b.full         = bytes / b.bucket_bytes;
  b.tail_bytes   = bytes % b.bucket_bytes;
  return b;
}

namespace {
/// Calls visit(bytes, seconds) for each bucket of `op`, in order.
template <class Visit> void each_bucket(const BucketedOp& op, Visit&& visit)
{
  for (std::uint64_t k = 0; k < op.buckets.full; ++k)
    visit(op.buckets.bucket_bytes, op.full_s);
  if (op.buckets.tail_bytes > 0)
    visit(op.buckets.tail_bytes, op.tail_s);
}
} // namespace

double reduction_finish_s(double pass_s, const std::vector<BucketedOp>& ops)
{
  double stream = 0; // when the communication stream is next free
  for (const auto& op : ops) {
    const double total = static_cast<double>(op.buckets.total());
    double produced    = 0;
    each_bucket(op, [&](std::uint64_t bytes, double seconds) {
      produced += static_cast<double>(bytes);
      const double ready = op.produced_by * (total > 0 ? pass_s * std::min(1.0, produced / total) : pass_s);
      stream             = std::max(stream, ready) + seconds;
    });
  }
  return std::max(stream, pass_s);
}

double prefetch_finish_s(double pass_s, const std::vector<BucketedOp>& ops)
{
  // Every op's weights are needed by the whole pass; with several ops, the pass waits for the latest of each share.
  double end = pass_s;
  double stream = 0;
  for (const auto& op : ops) {
    const double total = static_cast<double>(op.buckets.total());
    double pass        = 0; // when the pass has used the buckets so far
    each_bucket(op, [&](std::uint64_t bytes, double seconds) {
      stream += seconds;
      pass = std::max(pass, stream) + (total > 0 ? pass_s * static_cast<double>(bytes) / total : 0);
    });
    end = std::max(end, pass);
  }
  return end;
}

double layered_pass_s(double pass_s, int layers, double gather_s, double reduce_s)
{
  const int n        = std::max(1, layers);
  const double c     = pass_s / n;
  double stream      = gather_s; // layer 0's gather, issued at the pass's start
  double gathered    = gather_s; // when the next layer's weights are there
  double compute_end = 0;
  for (int k = 0; k < n; ++k) {
    const double start = std::max(compute_end, gathered);
    if (k + 1 < n) { // the next layer's gather, issued as this layer starts, after what the stream holds already
      stream   = std::max(stream, start) + gather_s;
      gathered = stream;
    }
    compute_end = start + c;
    if (reduce_s > 0) // this layer's gradients, reduced once it has computed them
      stream = std::max(stream, compute_end) + reduce_s;
  }
  return std::max(compute_end, stream);
}

RingExposure ring_attention_exposure(int cp, double one_block_s, double two_blocks_s, double attention_forward_s,
                                     double attention_backward_s, bool recompute)
{
  RingExposure out;
  if (cp < 2)
    return out;
  const double forward_step = attention_forward_s / cp, backward_step = attention_backward_s / cp;
  const auto rounds = [&](double count, double round_s, double step_s) {
    out.comm_s += count * round_s;
    out.exposed_s += count * std::max(0.0, round_s - step_s);
  };
  rounds((cp - 1) * (recompute ? 2.0 : 1.0), one_block_s, forward_step); // forward (and its recomputation)
  rounds(2, one_block_s, backward_step);                                 // backward: K,V out, dK,dV home
  rounds(cp - 2, two_blocks_s, backward_step);                           // backward: K,V with dK,dV
  return out;
}

} // namespace ccsim::sim
