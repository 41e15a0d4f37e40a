#pragma once
// How many channels NCCL's graph search gives a communicator, and at what per-channel bandwidth it rates them: an
// emulation of graph/search.cc (ncclTopoCompute, ncclTopoDupChannels) for uniform nodes whose GPUs each sit near
// their own NIC(s). It reproduces the channel counts NCCL prints for the clusters of the calibration logs (H100 with
// 8 x 400G: 8 channels of 48 GB/s; A100 with 16 x 100G: 16 of 12; one H100 node: 12 of 30; one A100 node: 12 of 20)
// and is approximate elsewhere: NCCL searches the real PCIe tree, this takes the NICs and NVLink as given.

#include "sim/platform/NcclConfig.hpp"

#include <optional>

namespace ccsim::sim {

/// What the search sees: the GPUs of one node in the communicator, its nodes, and the hardware.
struct GraphInputs {
  GpuArch arch          = GpuArch::HOPPER;
  int gpus_per_node     = 8;  // ranks of the communicator on one node
  int nodes             = 1;
  bool pcie             = false; // GPUs joined by PCIe rather than NVLink / NVSwitch
  double nvlink_gbytes  = 0;     // one GPU's NVLink line rate per direction, GB/s
  double nic_gbytes     = 0;     // one NIC's line rate, GB/s
  int nics              = 0;     // NICs the communicator's GPUs reach on one node
  bool nvls             = false;
  std::optional<int> channels;   // NCCL_MIN/MAX_NCHANNELS
};

/// One graph: channels and NCCL's per-channel bandwidths (GB/s) inside a node and across the network.
struct ChannelGraph {
  int channels    = 1;
  double bw_intra = 0;
  double bw_inter = 0;
};

struct NcclGraphs {
  ChannelGraph ring;
  ChannelGraph tree;
  std::optional<ChannelGraph> nvls; // NVLS and NVLS-Tree (channels = NVLS heads)
};

NcclGraphs nccl_graphs(const GraphInputs& in);

} // namespace ccsim::sim
