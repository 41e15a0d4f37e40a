#pragma once
// A cluster as ccsim sees it (topologies/*.json, schema in topologies/SCHEMA.md): GPU type, GPUs per node,
// the intra-node fabric, the NICs and the fabric between nodes, and the network model. Units are SI here;
// the loader converts *_gbps (1e9 bit/s) and *_us once.

#include "sim/platform/GpuCompute.hpp"
#include "sim/platform/NcclConfig.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ccsim::sim {

enum class NetworkModel {
  RDMA, // SimGrid CM02, no cross-traffic, no TCP window: exact alpha-beta (InfiniBand, Slingshot)
  TCP,  // SimGrid LV08 with cross-traffic and a real TCP window (Ethernet, WAN)
};

enum class FabricKind {
  SWITCH,   // one non-blocking switch (optionally oversubscribed through a shared core link)
  FAT_TREE, // two-level fat-tree: leaf switches of `nodes_per_leaf` nodes, uplinks oversubscribed
  WAN,      // machines on a wide-area network: every node's uplink is a WAN link
};

struct GpuSpec {
  std::string name;               // "V100", "A100", "H800": matches workload compute profiles
  /// FLOP/s sustained on every FLOP of every model (gpu.sustained_tflops): when given, it overrides the per-operator
  /// model for a workload without a measured profile (the papers' presets calibrated with it keep it).
  std::optional<double> sustained_flops;
  double peak_flops = 0;          // FLOP/s peak (reporting)
  /// The per-operator model's view of the GPU (gpu.compute): GEMMs from their shapes, element-wise ops from their bytes.
  std::optional<GpuCompute> compute;
  double memory_bytes_per_s = 0;  // HBM bandwidth
  std::optional<double> memory_bytes; // HBM capacity (gpu.memory_gb); without it no run is checked for fit
  /// gpu.memory_headroom_gb: bytes of memory_bytes the model cannot use (the CUDA context, the caching allocator's
  /// fragmentation); 0 where the topology does not state it.
  double memory_headroom_bytes = 0;
  std::map<std::string, double> kernel_bytes_per_s; // compression kernel throughput (input bytes/s)
  /// Throughput measured at several buffer sizes: (buffer bytes, bytes/s), ascending in size (gpu.kernel_gbps entries
  /// given as {"MB": GB/s, ...}). A small buffer leaves the GPU part idle: SDP4Bit Table 5's A100 quantizer runs at
  /// 306 GB/s on 8 MB and 689 GB/s on 2 GB.
  std::map<std::string, std::vector<std::pair<double, double>>> kernel_curves;
  double kernel_efficiency = 0.5; // kernels without an entry stream at this fraction of memory bandwidth
  /// Input bytes per second of a compression kernel on this GPU streaming a buffer of `bytes`.
  double kernel_rate(const std::string& kernel, double bytes) const;
};

/// A throughput-by-size curve read at `bytes`: linear in log(size) between its points, its end points beyond them.
double rate_at_size(const std::vector<std::pair<double, double>>& curve, double bytes);

/// A tc token-bucket shaper on every NIC, in force where a run sets the inter-node rate below the port's
/// (`--bandwidth-gbps`, an experiment's bandwidth_gbps). A transfer's first `queue_s` worth of bytes at the shaped
/// rate fills the shaper's queue and goes at that rate; beyond it, TCP loses packets at the full queue and the rest
/// goes at `backlog_efficiency` of the rate (nic.shaper; sim/platform/ShapedTransfer.hpp).
struct LinkShaper {
  double queue_s            = 0;
  double backlog_efficiency = 1;
};

/// One node that differs from the rest (issue 16): a slower (or faster) GPU generation, a NIC at another rate.
struct NodeOverride {
  double compute_scale = 1;                // compute speed of its GPUs, 1 = the topology's GPU
  std::optional<double> nic_bytes_per_s;   // delivered per NIC, replacing nic.effective_gbps on this node
  std::optional<double> intra_bytes_per_s; // each GPU's intra-node port, replacing intra_node.bandwidth_gbps here
};

/// "calibration": what `ccsim calibrate --nccl-tests` left in the topology it wrote (issue 48): the replay's
/// residuals against the user's own log, 100 (replayed - measured) / measured per size, over `gpus` ranks at
/// `inter_node_gbps`. A
/// simulation on the topology counts it as calibrated and draws its likely range from them (api/run/Intervals.hpp).
struct CalibrationResiduals {
  std::vector<double> error_pct;
  int gpus               = 0;
  double inter_node_gbps = 0; // the node's inter-node rate the log was measured at (all NICs, Gbit/s)
  std::string source;
};

struct Topology {
  std::string name;
  std::string description;
  std::string path;
  std::string software;            // training stack label ("deepspeed", "pytorch", "megatron"): selects the
                                   // workload's compute/optimizer measurements taken on that stack
  GpuSpec gpu;
  int gpus_per_node = 1;
  int max_nodes = 1;
  // Intra-node fabric: every GPU has a full-duplex port of this bandwidth to the node's switch (NVLink or PCIe):
  // what it delivers (intra_node.effective_gbps), at most its line rate (intra_node.bandwidth_gbps).
  double intra_bytes_per_s = 0;
  double intra_nominal_bytes_per_s = 0;
  double intra_latency_s = 0;
  bool intra_pcie = false; // intra_node.kind pcie
  // NICs: `nic_count` rails per node, aggregated into one full-duplex node uplink of count·effective bandwidth.
  int nic_count = 1;
  double nic_nominal_bytes_per_s = 0;
  double nic_bytes_per_s = 0;        // effective per NIC (what the cluster delivers)
  double nic_latency_s = 0;
  std::string nic_kind;               // nic.kind: "infiniband", "roce", "tcp", "efa", ... ("" unsaid): calibration priors
  std::optional<double> per_flow_bytes_per_s; // cap of any one flow (e.g. one TCP stream)
  double nic_port_bytes_per_s = 0;            // nic.bandwidth_gbps as the file gives it: a lower run rate is shaped
  std::optional<LinkShaper> shaper;           // nic.shaper: TCP through a token bucket where the rate is shaped
  FabricKind fabric = FabricKind::SWITCH;
  double oversubscription = 1.0;
  int nodes_per_leaf = 0;                     // fat-tree
  double fabric_latency_s = 0;                // switch / WAN latency added to inter-node paths
  NetworkModel network_model = NetworkModel::RDMA;
  double tcp_window_bytes = 4194304;          // LV08's TCP-gamma (only for NetworkModel::TCP)
  double bits_per_megabit = 1e6;              // 2^20 where the cluster's rates are labelled in binary Mbit
  std::map<int, NodeOverride> nodes;          // "nodes": {"3": {...}}: nodes that differ from the rest
  std::map<int, double> leaf_uplink_share;    // fat-tree "fabric.leaves": {"2": {"uplink_share": 0.5}}: degraded leaves
  NcclConfig nccl;                            // "nccl": how its collectives run (sim/platform/NcclConfig.hpp)
  std::optional<CalibrationResiduals> calibration; // "calibration": a user's own calibrate run's residuals

  std::int64_t max_gpus() const { return std::int64_t{gpus_per_node} * max_nodes; }
  /// Inter-node bandwidth of one node (all NICs) in bytes/s.
  double node_uplink_bytes_per_s() const { return nic_bytes_per_s * nic_count; }
  /// Bytes/s in one Gbit/s as this topology labels its NIC rates (1e9 bit/s, or 2^30 where bits_per_megabit = 2^20).
  double bytes_per_s_per_gbps() const { return 1e9 / 8 * bits_per_megabit / 1e6; }
  /// One-way latency of an inter-node message between two GPUs: intra port out + NIC + fabric + NIC + intra port in.
  double inter_node_latency_s() const;
  /// Whether FAST fidelity may merge the flows between two nodes (sim::merge_node_pairs): no per-flow cap, and GPU
  /// ports that cannot be slower than the node's uplink.
  bool node_pair_flows_mergeable() const
  {
    double fastest = nic_bytes_per_s, slowest_port = intra_bytes_per_s;
    for (const auto& [id, n] : nodes) {
      fastest      = std::max(fastest, n.nic_bytes_per_s.value_or(0));
      slowest_port = std::min(slowest_port, n.intra_bytes_per_s.value_or(intra_bytes_per_s));
    }
    return !per_flow_bytes_per_s && slowest_port >= fastest * nic_count;
  }
  double intra_node_latency_s() const { return 2 * intra_latency_s; }
  /// LV08 ("tcp") with NCCL's calibrated latencies, which already carry the transport: refused in a file and as an
  /// override, since LV08's slow start per message would count it twice.
  bool counts_transport_twice() const
  {
    return network_model == NetworkModel::TCP && nccl.present && nccl.latency == LatencyModel::NCCL;
  }
};

/// Loads and validates a topology file; errors are io::InputError "FILE: /json/path: problem".
Topology load_topology(const std::string& path);
/// The same for a document already in memory (a Python dict, a refit's trial constants): `path` names it in errors,
/// and its stem names the topology when the document has no "name".
Topology topology_from_json(const nlohmann::json& doc, const std::string& path);

/// --bandwidth-gbps: the nominal inter-node bandwidth of a node becomes this (all NICs together, in the
/// topology's own Mbit unit); the delivered share (effective / nominal) measured on the cluster is kept.
void override_inter_node_bandwidth(Topology& topo, double gbps);
/// --latency-us: the one-way NIC latency becomes this.
void override_inter_node_latency(Topology& topo, double us);
/// A link latency given in microseconds (in io::range::kLatencyUs) in seconds; under io::limits::kMinLinkLatencyUs
/// (1 ns) it is 0, which SimGrid can simulate (io/Limits.hpp says why a smaller one cannot be).
double link_latency_s(double us);

std::string to_string(NetworkModel m);

} // namespace ccsim::sim
