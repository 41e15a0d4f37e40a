// Topology loader: parse, validate with a JSON pointer in hand, convert units once.
#include "sim/platform/Topology.hpp"

#include <fmt/format.h>

#include "sim/platform/GpuComputeJson.hpp"
#include "sim/platform/NcclConfigJson.hpp"
#include "io/JsonInput.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iterator>

namespace ccsim::sim {

namespace {
constexpr double GBPS = 1e9 / 8; // bytes/s in one Gbit/s (network convention: 1e9 bit/s)
constexpr double US   = 1e-6;

/// The id a key of `ids` names ("3"): canonical decimal below `count`. "03" and "3" would name the same node, and the
/// second would silently replace the first, so leading zeros are refused.
int parse_id(const io::JsonObject& ids, const std::string& key, std::int64_t count, const char* what, const char* count_name)
{
  const bool digits = !key.empty() && key.size() <= 9 && key.find_first_not_of("0123456789") == std::string::npos &&
                      (key.size() == 1 || key[0] != '0');
  const auto id     = digits ? io::parse_integer(key, io::Range{0, 999999999}, ids.file()) : -1;
  if (!digits || id >= count)
    ids.fail_at(key, fmt::format("a {} id must be a whole number below {} = {}, without leading zeros (got {})", what,
                                 count_name, count, io::echo(key)));
  return static_cast<int>(id);
}
} // namespace

double GpuSpec::kernel_rate(const std::string& kernel, double bytes) const
{
  if (const auto it = kernel_curves.find(kernel); it != kernel_curves.end())
    return rate_at_size(it->second, bytes);
  if (const auto it = kernel_bytes_per_s.find(kernel); it != kernel_bytes_per_s.end())
    return it->second;
  return memory_bytes_per_s * kernel_efficiency;
}

double rate_at_size(const std::vector<std::pair<double, double>>& curve, double bytes)
{
  // Linear in log(size) between measured sizes; the end points hold beyond them (no extrapolated speed-up).
  if (bytes <= curve.front().first)
    return curve.front().second;
  if (bytes >= curve.back().first)
    return curve.back().second;
  const auto hi = std::lower_bound(curve.begin(), curve.end(), bytes,
                                   [](const auto& point, double b) { return point.first < b; });
  const auto lo = std::prev(hi);
  const double w = std::log(bytes / lo->first) / std::log(hi->first / lo->first);
  return lo->second + w * (hi->second - lo->second);
}

double Topology::inter_node_latency_s() const
{
  return 2 * intra_latency_s + 2 * nic_latency_s + fabric_latency_s;
}

std::string to_string(NetworkModel m)
{
  return m == NetworkModel::RDMA ? "rdma" : "tcp";
}

Topology load_topology(const std::string& path)
{
  return topology_from_json(io::read_json_file(path), path);
}

Topology topology_from_json(const nlohmann::json& doc, const std::string& path)
{
  const io::JsonObject root(doc, path);
  root.allow_only({"name", "software", "gpu", "gpus_per_node", "max_nodes", "intra_node", "nic", "fabric",
                   "network_model", "tcp_window_bytes", "nodes", "nccl", "calibration"});
  Topology t;
  t.path        = path;
  t.name        = root.string_or("name", std::filesystem::path(path).stem().string());
  t.description = root.string_or("description", "");
  t.software    = root.string_or("software", "");

  const auto gpu = root.object("gpu");
  gpu.allow_only({"name", "sustained_tflops", "peak_tflops", "memory_gbps", "memory_gb", "memory_headroom_gb",
                  "kernel_gbps", "kernel_efficiency", "compute"});
  t.gpu.name = gpu.string("name");
  if (gpu.has("sustained_tflops"))
    t.gpu.sustained_flops = gpu.number_in("sustained_tflops", io::range::kTflops) * 1e12;
  if (const auto compute = gpu.object_if("compute"))
    t.gpu.compute = gpu_compute_from_json(*compute);
  if (!t.gpu.sustained_flops && !t.gpu.compute)
    gpu.fail("needs a compute block (the per-operator model) or sustained_tflops (one rate for every FLOP)");
  // Reported only: the datasheet peak, else the 16-bit tensor peak of the compute block, else the sustained rate.
  double peak_default = t.gpu.sustained_flops.value_or(0);
  if (t.gpu.compute) {
    const TensorRate* rate = t.gpu.compute->rate(t.gpu.compute->default_precision());
    peak_default           = rate ? rate->peak_flops : t.gpu.compute->rates.begin()->second.peak_flops;
  }
  t.gpu.peak_flops = gpu.number_in_or("peak_tflops", io::range::kTflops, peak_default / 1e12) * 1e12;
  t.gpu.memory_bytes_per_s = gpu.number_in("memory_gbps", io::range::kMemoryGbps) * 1e9; // GB/s (1e9 bytes/s)
  t.gpu.kernel_efficiency  = gpu.number_in_or("kernel_efficiency", io::range::kFraction, 0.5); // share of memory_gbps
  if (gpu.has("memory_gb"))
    t.gpu.memory_bytes = gpu.number_in("memory_gb", io::range::kGpuMemoryGb) * 1e9;
  if (gpu.has("memory_headroom_gb")) {
    if (!t.gpu.memory_bytes)
      gpu.fail_at("memory_headroom_gb", "is part of gpu.memory_gb: give memory_gb too");
    t.gpu.memory_headroom_bytes = gpu.number_in("memory_headroom_gb", io::range::kMemoryHeadroomGb) * 1e9;
    if (t.gpu.memory_headroom_bytes >= *t.gpu.memory_bytes)
      gpu.fail_at("memory_headroom_gb", "leaves no memory for the model: must be below memory_gb");
  }
  if (const auto kernels = gpu.object_if("kernel_gbps")) {
    for (const auto& [name, value] : kernels->raw().items()) {
      if (io::is_note_key(name))
        continue;
      if (!kernels->raw().at(name).is_object()) {
        t.gpu.kernel_bytes_per_s[name] = kernels->number_in(name, io::range::kKernelGbps) * 1e9; // GB/s of input
        continue;
      }
      // {"MB": GB/s, ...}: the kernel measured at several buffer sizes (MB = 2^20 bytes).
      const auto by_size = kernels->object(name);
      auto& curve        = t.gpu.kernel_curves[name];
      for (const auto& [size, rate] : by_size.raw().items()) {
        if (io::is_note_key(size))
          continue;
        double mb = 0;
        try { // a key is text: checked as a number in range, and reported at its own path if it is not
          mb = io::parse_number(size, io::range::kKernelBufferMb, "");
        } catch (const io::InputError& e) {
          by_size.fail_at(size, "the key must be a buffer size in MB (2^20 bytes): " + e.problem());
        }
        curve.emplace_back(mb * 1048576.0, by_size.number_in(size, io::range::kKernelGbps) * 1e9);
      }
      if (curve.empty())
        kernels->fail_at(name, "needs at least one \"MB\": GB/s pair, or one number");
      std::sort(curve.begin(), curve.end());
    }
  }

  t.gpus_per_node = static_cast<int>(root.integer_in("gpus_per_node", io::range::kGpusPerNode));
  t.max_nodes     = static_cast<int>(root.integer_in("max_nodes", io::range::kMaxNodes));

  const auto intra = root.object("intra_node");
  intra.allow_only({"kind", "bandwidth_gbps", "effective_gbps", "latency_us"});
  t.intra_pcie = intra.choice_or("kind", {"nvlink", "pcie", "none"}, "nvlink") == "pcie";
  t.intra_nominal_bytes_per_s = intra.number_in("bandwidth_gbps", io::range::kLinkGbps) * GBPS;
  t.intra_bytes_per_s = intra.number_in_or("effective_gbps", io::range::kLinkGbps, t.intra_nominal_bytes_per_s / GBPS) * GBPS;
  if (t.intra_bytes_per_s > t.intra_nominal_bytes_per_s * (1 + 1e-9))
    intra.fail_at("effective_gbps", "must not exceed bandwidth_gbps (the line rate)");
  t.intra_latency_s   = link_latency_s(intra.number_in("latency_us", io::range::kLatencyUs));

  const auto nic = root.object("nic");
  nic.allow_only({"count", "bandwidth_gbps", "effective_gbps", "latency_us", "per_flow_gbps", "bits_per_megabit", "kind",
                  "shaper"});
  if (nic.has("kind"))
    t.nic_kind = nic.choice("kind", {"infiniband", "roce", "ethernet", "tcp", "efa", "slingshot"});
  // AQ-SGD's cluster labels its tc-shaped rates in binary megabits (Table 3: payload / time gives 2^20 bit/s).
  t.bits_per_megabit        = nic.number_in_or("bits_per_megabit", io::range::kBitsPerMegabit, 1e6);
  const double unit         = t.bytes_per_s_per_gbps();
  t.nic_count               = static_cast<int>(nic.integer_in_or("count", io::range::kNicCount, 1));
  const double nominal_gbps = nic.number_in("bandwidth_gbps", io::range::kLinkGbps);
  t.nic_nominal_bytes_per_s = nominal_gbps * unit;
  t.nic_port_bytes_per_s    = t.nic_nominal_bytes_per_s;
  t.nic_bytes_per_s         = nic.number_in_or("effective_gbps", io::range::kLinkGbps, nominal_gbps) * unit;
  if (t.nic_bytes_per_s > t.nic_nominal_bytes_per_s * (1 + 1e-9))
    nic.fail_at("effective_gbps", "must not exceed bandwidth_gbps (the nominal rate)");
  t.nic_latency_s = link_latency_s(nic.number_in("latency_us", io::range::kLatencyUs));
  if (nic.has("per_flow_gbps"))
    t.per_flow_bytes_per_s = nic.number_in("per_flow_gbps", io::range::kLinkGbps) * unit;
  if (const auto shaper = nic.object_if("shaper")) {
    shaper->allow_only({"queue_ms", "backlog_efficiency"});
    t.shaper = LinkShaper{shaper->number_in("queue_ms", io::range::kShaperQueueMs) / 1e3,
                          shaper->number_in("backlog_efficiency", io::range::kFraction)};
  }

  const auto fabric = root.object("fabric");
  fabric.allow_only({"kind", "oversubscription", "nodes_per_leaf", "latency_us", "leaves"});
  const std::string kind = fabric.choice("kind", {"switch", "fat-tree", "wan"});
  t.fabric           = kind == "switch" ? FabricKind::SWITCH : kind == "fat-tree" ? FabricKind::FAT_TREE : FabricKind::WAN;
  t.oversubscription = fabric.number_in_or("oversubscription", io::range::kOversubscription, 1.0); // 1 = non-blocking
  t.fabric_latency_s = link_latency_s(fabric.number_in_or("latency_us", io::range::kLatencyUs, 0));
  if (t.fabric == FabricKind::FAT_TREE)
    t.nodes_per_leaf = static_cast<int>(fabric.integer_in("nodes_per_leaf", io::range::kNodesPerLeaf));
  if (const auto leaves = fabric.object_if("leaves")) {
    // Degraded leaves of a fat-tree (a failed cable among a leaf's uplinks): the share of its uplink capacity left.
    if (t.fabric != FabricKind::FAT_TREE)
      fabric.fail_at("leaves", "only a fat-tree has leaves (fabric.kind is " + kind + ")");
    const std::int64_t count = (std::int64_t{t.max_nodes} + t.nodes_per_leaf - 1) / t.nodes_per_leaf;
    for (const auto& [key, value] : leaves->raw().items()) {
      if (io::is_note_key(key))
        continue;
      const int id = parse_id(*leaves, key, count, "leaf", "the number of leaves");
      const auto leaf = leaves->object(key);
      leaf.allow_only({"uplink_share"});
      t.leaf_uplink_share[id] = leaf.number_in("uplink_share", io::range::kLinkShare);
    }
  }

  if (const auto nccl = root.object_if("nccl"))
    t.nccl = nccl_config_from_json(*nccl, t.intra_nominal_bytes_per_s);
  if (const auto cal = root.object_if("calibration")) {
    cal->allow_only({"source", "gpus", "inter_node_gbps", "residuals_pct"});
    CalibrationResiduals c;
    c.source    = cal->string("source");
    c.gpus      = static_cast<int>(cal->integer_in("gpus", io::range::kGpus));
    c.inter_node_gbps = cal->number_in("inter_node_gbps", io::range::kLinkGbps);
    c.error_pct = cal->numbers("residuals_pct");
    if (c.error_pct.empty())
      cal->fail_at("residuals_pct", "must hold the replay's error at one size or more");
    for (const double e : c.error_pct)
      if (!(e > -100 && e < 1e4))
        cal->fail_at("residuals_pct", "holds an error outside (-100, 10000) %");
    t.calibration = std::move(c);
  }
  t.network_model = root.choice("network_model", {"rdma", "tcp"}) == "rdma" ? NetworkModel::RDMA : NetworkModel::TCP;
  t.tcp_window_bytes = root.number_in_or("tcp_window_bytes", io::range::kTcpWindowBytes, 4194304);
  if (t.counts_transport_twice())
    root.fail_at("network_model", "\"tcp\" with nccl.latency_model \"nccl\": NCCL's calibrated constants already carry the "
                                  "transport (TCP too), and LV08's own slow start and cross-traffic would count it twice: "
                                  "use \"rdma\", or nccl.latency_model \"links\"");
  if (const auto nodes = root.object_if("nodes")) {
    // Keys are node ids ("3"), below max_nodes. Each node says how it differs.
    for (const auto& [key, value] : nodes->raw().items()) {
      if (io::is_note_key(key))
        continue;
      const int id    = parse_id(*nodes, key, t.max_nodes, "node", "max_nodes");
      const auto node = nodes->object(key);
      node.allow_only({"compute_scale", "nic_gbps", "intra_gbps"});
      NodeOverride o;
      o.compute_scale = node.number_in_or("compute_scale", io::range::kComputeScale, 1);
      if (node.has("nic_gbps"))
        o.nic_bytes_per_s = node.number_in("nic_gbps", io::range::kLinkGbps) * unit;
      if (node.has("intra_gbps")) // same unit as intra_node.bandwidth_gbps
        o.intra_bytes_per_s = node.number_in("intra_gbps", io::range::kLinkGbps) * GBPS;
      t.nodes[id] = o;
    }
  }
  return t;
}

void override_inter_node_bandwidth(Topology& topo, double gbps)
{
  io::check_range(gbps, io::range::kLinkGbps, /*integer=*/false, "--bandwidth-gbps");
  // The papers vary the link rate ("1/10/100 Gbps"); what the cluster delivers of it stays the same share.
  const double delivered       = topo.nic_bytes_per_s / topo.nic_nominal_bytes_per_s;
  topo.nic_nominal_bytes_per_s = gbps * GBPS * topo.bits_per_megabit / 1e6 / topo.nic_count;
  topo.nic_bytes_per_s         = topo.nic_nominal_bytes_per_s * delivered;
}

void override_inter_node_latency(Topology& topo, double us)
{
  io::check_range(us, io::range::kLatencyUs, /*integer=*/false, "--latency-us");
  topo.nic_latency_s = link_latency_s(us);
}

double link_latency_s(double us)
{
  return us < io::limits::kMinLinkLatencyUs ? 0.0 : us * US;
}

} // namespace ccsim::sim
