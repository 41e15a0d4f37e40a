// NCCL 2.7.x's cost model, emulated; see NcclTuner.hpp. Line numbers are src/graph/tuning.cc at NVIDIA/nccl
// v2.7.8-1. What differs from the current model (NcclTuner.cpp): the tree's 0.9 and a cap on the whole tree instead of
// per channel, LL's quarter on the ring, other per-hop latencies (a tree hop over the network 50 us), no network post
// overhead, the tree correction up to 128 MiB and the ring's plateau by the buffer's size.
#include "sim/nccl/NcclConstants.hpp"
#include "sim/nccl/NcclTuner.hpp"

#include <algorithm>

namespace ccsim::sim {

namespace {
namespace v = nccl_constants::v2_7;

double ll128_channel_bw(Collective c)
{
  if (c == Collective::ALL_GATHER)
    return v::kLl128ChannelBwAllGather;
  if (c == Collective::REDUCE_SCATTER)
    return v::kLl128ChannelBwReduceScatter;
  return v::kLl128ChannelBwAllReduce;
}
} // namespace

std::optional<double> nccl_estimate_v27_s(const TunerInputs& in, const NcclGraphs& graphs, Algo algo, Proto proto,
                                          std::uint64_t bytes)
{
  const int n = in.ranks, N = in.nodes;
  const bool ar    = in.collective == Collective::ALL_REDUCE;
  const bool ag_rs = in.collective == Collective::ALL_GATHER || in.collective == Collective::REDUCE_SCATTER;
  // :102-106 every collective rings; only the all-reduce has a tree. No NVLS or NVLS-Tree before 2.17.
  if ((!ar && !ag_rs) || (algo != Algo::RING && algo != Algo::TREE) || (algo == Algo::TREE && !ar) || n <= 1)
    return std::nullopt;
  const auto p         = static_cast<std::size_t>(proto_index(proto));
  const double ppn     = static_cast<double>(n) / N;
  const bool ampere    = in.arch == GpuArch::AMPERE;
  const int nsteps     = ar ? 2 * (n - 1) : n - 1;      // :95-97
  const int inter_step = ar ? 2 * (N - 1) : N - 1;      // :98-100
  const ChannelGraph& g = algo == Algo::TREE ? graphs.tree : graphs.ring;
  double bus            = g.channels * (N <= 2 ? g.bw_intra : g.bw_inter); // :108-109
  if (ampere)                                                              // :112
    bus = in.version && in.version->at_least(2, 7, 8) ? std::min(bus, v::kAmpereBusCap) : bus * 0.92;
  if (algo == Algo::RING && proto == Proto::LL) // :113
    bus *= (N > 1 || ar) ? 1.0 / 4.0 : 1.0 / 3.0;
  if (algo == Algo::RING && proto == Proto::LL128) // :114
    bus = std::min(bus * (ppn < 2 ? 0.7 : 0.92), ll128_channel_bw(in.collective) * g.channels);
  if (algo == Algo::TREE) { // :115-120
    const bool ll128_ampere = ampere && proto == Proto::LL128;
    const double cap        = N > 2 ? (ll128_ampere ? v::kTreeLl128BwMoreAmpere : v::kTreeBwMoreNodes)
                                    : (ll128_ampere ? v::kTreeLl128BwUpTo2Ampere : v::kTreeBwUpTo2Nodes);
    bus = std::min(bus * 0.9, cap);
    if (proto == Proto::LL)
      bus /= 3.8;
    if (proto == Proto::LL128)
      bus = std::min(bus * (N == 1 ? 7.0 / 9.0 : 0.915), ll128_channel_bw(in.collective) * g.channels * 7.0 / 9.0);
  }
  double bw = bus * (algo == Algo::RING ? static_cast<double>(n) / nsteps : 0.5); // :126
  // :129-148 latencies: the algorithm's base, then its hops inside the node (NVLink or PCIe) and across the network.
  const auto& intra_row = algo == Algo::TREE ? (in.pcie ? v::kPciTree : v::kNvlinkTree)
                                             : (in.pcie ? v::kPciRing : v::kNvlinkRing);
  const auto& net_row   = algo == Algo::TREE ? v::kNetTree : v::kNetRing;
  double intra          = intra_row[p];
  if (N > 1 && proto == Proto::LL)
    intra *= 1.8;
  double lat = (algo == Algo::TREE ? v::kBaseLatencyTree : v::kBaseLatencyRing)[p];
  if (algo == Algo::RING)
    lat += (nsteps - inter_step) * intra + inter_step * net_row[p];
  else
    lat += 2 * ((n / N - 1) * intra + log2_floor(N) * net_row[p]);
  // :253-263 ncclTopoGetAlgoTime.
  const int log_size = log2_floor(static_cast<double>(bytes >> 6));
  if (algo == Algo::TREE && log_size < 22)
    bw *= v::kTreeCorrection[p][static_cast<std::size_t>(log_size)];
  if (algo == Algo::RING && proto == Proto::SIMPLE && N > 1 && ar && static_cast<double>(bytes) >= n / 16.0 * 65536)
    lat *= v::kRingPlateau;
  if (bw <= 0)
    return std::nullopt;
  return (lat + static_cast<double>(bytes) / (1000 * bw)) * 1e-6;
}

} // namespace ccsim::sim
