// NCCL's channel graphs, emulated; see NcclGraph.hpp.
#include "sim/nccl/NcclGraph.hpp"

#include "sim/nccl/NcclConstants.hpp"

#include <algorithm>
#include <cmath>
#include <span>

namespace ccsim::sim {

namespace {
namespace k = nccl_constants;

/// The first speed of NCCL's list at or below `limit` (the search starts at the top and steps down until a graph
/// fits, search.cc ncclTopoCompute); the slowest when none is.
double first_speed(std::span<const double> speeds, double limit)
{
  for (const double s : speeds)
    if (s <= limit + 1e-9)
      return s;
  return speeds.back();
}

std::span<const double> intra_speeds(GpuArch arch)
{
  if (arch == GpuArch::HOPPER)
    return k::kSpeedIntraSm90;
  if (arch == GpuArch::BLACKWELL)
    return k::kSpeedIntraSm100;
  return k::kSpeedIntra;
}

std::span<const double> inter_speeds(GpuArch arch)
{
  if (arch == GpuArch::HOPPER)
    return k::kSpeedInterSm90;
  if (arch == GpuArch::BLACKWELL)
    return k::kSpeedInterSm100;
  return k::kSpeedInter;
}

/// search.cc:1036-1048 ncclTopoDupChannels: a graph of at least 25 GB/s per channel doubles its channels at half the
/// bandwidth, except on Hopper and later below 50 GB/s with more than 4 channels.
ChannelGraph dup_channels(int channels, double bw, GpuArch arch)
{
  if (bw < 25.0 || (arch >= GpuArch::HOPPER && bw < 50.0 && channels > 4))
    return {channels, bw, bw};
  const int doubled = std::min(channels * 2, k::kMaxChannels);
  const double per  = bw / std::ceil(static_cast<double>(doubled) / channels);
  return {doubled, per, per};
}
} // namespace

NcclGraphs nccl_graphs(const GraphInputs& in)
{
  const auto arch        = static_cast<std::size_t>(in.arch);
  const double nvl_total = in.pcie ? k::kPciBw : std::max(1.0, std::round(in.nvlink_gbytes / (in.arch == GpuArch::BLACKWELL ? 50.0 : 25.0))) * k::kNvlinkLinkBw[arch];
  const auto intra = intra_speeds(in.arch);
  const auto inter = inter_speeds(in.arch);
  NcclGraphs g;
  if (in.nodes <= 1) {
    const double s = first_speed(intra, nvl_total);
    int channels   = std::clamp(static_cast<int>(std::floor(nvl_total / s)), 1, k::kMaxChannels);
    if (in.channels)
      channels = *in.channels;
    g.ring = g.tree = dup_channels(channels, s, in.arch);
  } else {
    // One channel per NIC (or per NIC-bandwidth multiple of the channel's speed), searched at the NIC's rate.
    const double s      = first_speed(inter, std::min(in.nic_gbytes, nvl_total));
    const int per_nic   = std::max(1, static_cast<int>(std::floor(in.nic_gbytes / s)));
    int channels        = std::clamp(std::max(1, in.nics) * per_nic, 1, k::kMaxChannels);
    if (in.channels)
      channels = *in.channels;
    g.ring = dup_channels(channels, s, in.arch);
    // A tree's second search pass raises bwIntra up to 2 x bwInter while NVLink carries it (search.cc:1279-1282).
    g.tree = g.ring;
    for (auto it = inter.rbegin(); it != inter.rend(); ++it)
      if (*it > g.ring.bw_intra && *it <= 2 * g.ring.bw_intra && *it * g.ring.channels <= nvl_total)
        g.tree.bw_intra = *it;
  }
  if (in.nvls && in.arch >= GpuArch::HOPPER && !in.pcie && in.gpus_per_node > 1) {
    // One NVLS head per GPU; the switch sees the node's NVLink bandwidth.
    const double per_gpu = nvl_total * in.gpus_per_node / (in.gpus_per_node - 1) / in.gpus_per_node;
    const double s       = first_speed(intra, per_gpu);
    g.nvls = ChannelGraph{in.gpus_per_node, s, in.nodes > 1 ? first_speed(inter, in.nic_gbytes) : s};
  }
  return g;
}

} // namespace ccsim::sim
