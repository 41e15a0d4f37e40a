// Closed forms of a tensor-parallel collective beside its GEMM (GemmOverlap.hpp). Each is the makespan of two
// streams, the GEMM's and the communication's, minus the GEMM's own time.
#include "sim/layout/GemmOverlap.hpp"

#include <algorithm>
#include <stdexcept>

namespace ccsim::sim {

double pipelined_exposed_s(double comm_s, double gemm_s, int chunks)
{
  // GEMM chunks of g = t_g / n back to back; chunk i's reduce-scatter (c = t_c / n) starts when its GEMM and the
  // previous reduce-scatter are done. c <= g: the stream waits for each GEMM and the step ends c after the last one.
  // c > g: the reduce-scatters run back to back from g on and end at g + n c.
  const double n = std::max(1, chunks);
  return comm_s / n + (n - 1) / n * std::max(0.0, comm_s - gemm_s);
}

double ring_exchange_exposed_s(double comm_s, double gemm_s, int chunks)
{
  // Step k (k = 1 .. n - 1) brings chunk k at k c, c = t_c / (n - 1); GEMM chunk k (g = t_g / n) starts at
  // max(k g, k c): the last ends at (n - 1) max(g, c) + g, that is t_g where c <= g, and t_c + t_g / n otherwise.
  const double n = std::max(1, chunks);
  if (n < 2)
    return comm_s; // one chunk: nothing arrives while the GEMM runs
  return std::max(0.0, comm_s - (n - 1) / n * gemm_s);
}

double bulk_exposed_s(double comm_s, double gemm_s) { return std::max(0.0, comm_s - gemm_s); }

double gemm_overlap_exposed_s(GemmOverlapMethod method, double comm_s, double gemm_s, int chunks)
{
  switch (method) {
  case GemmOverlapMethod::RING_EXCHANGE: return ring_exchange_exposed_s(comm_s, gemm_s, chunks);
  case GemmOverlapMethod::PIPELINE: return pipelined_exposed_s(comm_s, gemm_s, chunks);
  case GemmOverlapMethod::BULK: break;
  }
  return bulk_exposed_s(comm_s, gemm_s);
}

double layer_gemm_s(const ComputeTimes& compute, const std::string& name, double compute_scale)
{
  if (!compute.operators)
    throw std::logic_error("--tp-overlap needs the per-operator compute model (" + compute.source + ")");
  for (const auto& priced : compute.operators->layer.ops)
    if (priced.op.kind == OpKind::GEMM && priced.op.pass != Pass::RECOMPUTE && priced.op.name == name)
      return priced.cost.seconds * compute_scale;
  throw std::logic_error("--tp-overlap: the layer has no GEMM " + name);
}

double beside_gemms_exposed_s(const ComputeTimes& compute, double compute_scale, const CommOp& op, double measured_s)
{
  double exposed = measured_s, listed = 0;
  for (const auto& g : op.beside_gemms) {
    const double comm_s = g.share * measured_s;
    const double runs   = static_cast<double>(g.runs);
    const double hidden = comm_s - gemm_overlap_exposed_s(g.method, comm_s, layer_gemm_s(compute, g.gemm, compute_scale),
                                                          g.chunks);
    exposed -= runs * hidden;
    listed += runs * g.share;
  }
  if (listed > 1 + 1e-9)
    throw std::logic_error("--tp-overlap: the collectives beside GEMMs take more than their op's bytes");
  return std::max(0.0, exposed);
}

} // namespace ccsim::sim
