// NCCL's cost model, emulated; see NcclTuner.hpp. Line numbers are graph/tuning.cc at NCCL@5067397c.
#include "sim/nccl/NcclTuner.hpp"

#include "sim/nccl/NcclConstants.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ccsim::sim {

namespace {
namespace k = nccl_constants;

const nccl_constants::Row3& intra_latency_row(Algo a, bool pcie)
{
  if (a == Algo::TREE)
    return pcie ? k::kPciTree : k::kNvlinkTree;
  if (a == Algo::NVLS || a == Algo::NVLS_TREE)
    return k::kNvlinkNvls;
  return pcie ? k::kPciRing : k::kNvlinkRing;
}

const nccl_constants::Row3& net_latency_row(Algo a)
{
  if (a == Algo::TREE)
    return k::kNetTree;
  if (a == Algo::NVLS)
    return k::kNetNvls;
  if (a == Algo::NVLS_TREE)
    return k::kNetNvlsTree;
  return k::kNetRing;
}
} // namespace

int log2_floor(double x)
{
  return x >= 1 ? static_cast<int>(std::floor(std::log2(x))) : 0;
}

bool runs_v27_tuner(const std::optional<NcclVersion>& version)
{
  return version && version->at_least(2, 7, 0) && !version->at_least(2, 8, 0);
}

std::optional<double> nccl_estimate_s(const TunerInputs& in, const NcclGraphs& graphs, Algo algo, Proto proto,
                                      std::uint64_t bytes)
{
  if (runs_v27_tuner(in.version))
    return nccl_estimate_v27_s(in, graphs, algo, proto, bytes);
  const int n = in.ranks, N = in.nodes;
  const double ppn = static_cast<double>(n) / N;
  const auto arch  = static_cast<std::size_t>(in.arch);
  const auto p     = static_cast<std::size_t>(proto_index(proto));
  const auto col   = static_cast<std::size_t>(N <= 1 ? 0 : (N == 2 ? 1 : 2)); // index2, :266
  const bool ar    = in.collective == Collective::ALL_REDUCE;
  const bool ag_rs = in.collective == Collective::ALL_GATHER || in.collective == Collective::REDUCE_SCATTER;
  if (!ar && !ag_rs)
    return std::nullopt; // NCCL tunes collectives only; p2p has its own rule
  const int nsteps = ar ? 2 * (n - 1) : n - 1;
  const ChannelGraph* g = algo == Algo::TREE ? &graphs.tree : &graphs.ring;
  if (algo == Algo::NVLS || algo == Algo::NVLS_TREE) {
    if (!graphs.nvls)
      return std::nullopt;
    g = &*graphs.nvls;
  }
  // :267-270: LL's ceiling reads the GPU row on one node, the CPU row (Intel 0, AMD 1) across nodes.
  const double ll_max = k::kLlMaxBw[N == 1 ? arch : (in.cpu == CpuVendor::AMD ? 1 : 0)][col];
  double bw = N <= 2 ? g->bw_intra : g->bw_inter; // :306
  if (algo == Algo::NVLS || algo == Algo::NVLS_TREE) { // :307-323
    if (g->channels < 2)
      return std::nullopt;
    double intra = g->bw_intra * k::kNvlsEfficiency[arch] * (g->channels - 1) / g->channels;
    intra *= ar ? 2.0 : (ppn - 1) / ppn;
    const double inter = g->bw_inter * ((N <= 2 && algo == Algo::NVLS_TREE) ? 2 : 1);
    bw = std::min({intra, inter, algo == Algo::NVLS_TREE ? k::kNvlsTreeChannelBw[arch][col]
                                                         : std::numeric_limits<double>::max()});
  }
  double bus = g->channels * bw;
  // :326-336 the model's refinements per algorithm and protocol.
  if (algo == Algo::RING && proto == Proto::LL)
    bus = std::min(ll_max, bus * 0.5);
  if (algo == Algo::RING && proto == Proto::LL128)
    bus = std::min(bus * 0.92, g->channels * k::kRingLl128ChannelBw[arch][col]);
  if (algo == Algo::TREE && ar)
    bus = std::min(bus * 0.92, g->channels * k::kTreeChannelBw[arch][col]);
  if (algo == Algo::TREE && proto == Proto::LL)
    bus = std::min(bus / 3.8, ll_max);
  if (algo == Algo::TREE && proto == Proto::LL128)
    bus = std::min(bus * (N == 1 ? 7.0 / 9.0 : 120.0 / 128.0), g->channels * k::kTreeLl128ChannelBw[arch][col]);
  // :376-381 bus bandwidth to algorithm bandwidth.
  if (!(algo != Algo::RING && ag_rs))
    bus *= (algo == Algo::RING || algo == Algo::NVLS || algo == Algo::NVLS_TREE) ? static_cast<double>(n) / nsteps : 0.5;
  if (bus <= 0)
    return std::nullopt;
  // :383-435 latencies.
  double lat         = algo == Algo::TREE ? k::kBaseLatencyTree[p] : (algo == Algo::RING ? k::kBaseLatencyRing[p] : 0.0);
  double intra       = intra_latency_row(algo, in.pcie)[p];
  const double inter = (ppn == 1 ? k::kNetTree : net_latency_row(algo))[p];
  const int g_local  = n / N;
  if (algo == Algo::RING) {
    double overhead = 0;
    if (N > 1)
      overhead = (in.cpu == CpuVendor::AMD ? k::kNetOverheadAmd : k::kNetOverheadIntel) * (proto == Proto::SIMPLE ? 3 : 1);
    intra              = std::max(intra, overhead);
    const int n_inter  = N == 1 ? 0 : (ar ? 2 * (N - 1) : N - 1);
    lat += (nsteps - n_inter) * intra + n_inter * inter;
  } else if (algo == Algo::TREE) {
    lat += 2 * ((g_local - 1) * intra + log2_floor(N) * inter);
  } else if (algo == Algo::NVLS) {
    lat = intra + (N > 1 ? inter : 0);
  } else if (algo == Algo::NVLS_TREE) {
    lat += intra + 2 * log2_floor(N) * inter;
  }
  // :639-650 the tree correction by size and the ring's plateau.
  const int log_size = bytes >= 64 ? log2_floor(static_cast<double>(bytes >> 6)) : -1;
  if (algo == Algo::TREE && ar && log_size >= 0 && log_size < 23)
    bus *= k::kTreeCorrection[p][static_cast<std::size_t>(log_size)];
  if (algo == Algo::NVLS_TREE && ar && log_size >= 0 && log_size < 24 && in.arch >= GpuArch::BLACKWELL)
    bus *= k::kTreeCorrection[p][static_cast<std::size_t>(log_size)];
  if (algo == Algo::RING && proto == Proto::SIMPLE && N > 1 && ar &&
      static_cast<double>(bytes) / (static_cast<double>(graphs.ring.channels) * n) >= 64)
    lat *= in.arch < GpuArch::AMPERE ? k::kRingPlateauVolta : k::kRingPlateau;
  return (lat + static_cast<double>(bytes) / (1000 * bus)) * 1e-6;
}

} // namespace ccsim::sim
