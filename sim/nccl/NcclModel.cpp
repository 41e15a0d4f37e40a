// The collective model; see NcclModel.hpp. Its bandwidth terms are the loads of sim/nccl/NcclFlows.cpp's flows: change one,
// change the other (tests/sim/NcclModel_test.cpp holds simulation == model on an idle cluster).
#include "sim/nccl/NcclModel.hpp"

#include "sim/nccl/DoubleTree.hpp"
#include "sim/nccl/NcclConstants.hpp"
#include "sim/nccl/NcclTuner.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace ccsim::sim {

namespace {
namespace k = nccl_constants;

constexpr double US   = 1e-6;
constexpr double GBPS = 1e9;  // NCCL's GB/s
constexpr double LV08_LATENCY_FACTOR = 13.01; // SimGrid's LV08 latency factor (docs/design/notes/simgrid.md §3)
// NCCL estimates within this share of its minimum are near-ties the emulated graph cannot settle.
constexpr double kNearTie = 0.10;

double protocol_efficiency(Proto p)
{
  // include/device.h: LL sends a 4-byte flag with every 4 bytes of data; LL128 120 data bytes in every 128.
  return p == Proto::LL ? 0.5 : (p == Proto::LL128 ? 120.0 / 128.0 : 1.0);
}

/// What one group sees of the cluster, bytes/s and seconds.
struct Rates {
  double port   = 0; // a GPU's port, delivered
  double uplink = 0; // a node's NICs together, delivered
  double nic    = 0; // one NIC, delivered
  int nics      = 1; // NICs on a node
  int group_nics = 1; // NICs the group's GPUs sit near (rails)
  double rail   = 0;  // what one GPU's own NIC(s) deliver
  double nvls   = 0;
  double p2p    = 0;
  bool tables   = false; // NCCL's tables apply (nccl.gpu_arch known)
  double alpha_intra = 0, alpha_inter = 0; // route latencies of one hop
};

Rates rates_of(const Topology& t, const GroupShape& g)
{
  Rates r;
  r.port       = t.intra_bytes_per_s;
  r.nic        = t.nic_bytes_per_s;
  r.nics       = t.nic_count;
  r.uplink     = t.node_uplink_bytes_per_s();
  r.group_nics = std::max(1, t.nic_count * std::max(1, g.per_node) / std::max(1, t.gpus_per_node));
  r.rail       = std::max(1, t.nic_count / std::max(1, t.gpus_per_node)) * t.nic_bytes_per_s;
  r.nvls       = t.nccl.nvls_bytes_per_s.value_or(0);
  r.p2p        = t.nccl.p2p_bytes_per_s.value_or(t.intra_bytes_per_s);
  r.tables     = t.nccl.present && t.nccl.arch.has_value();
  r.alpha_intra = intra_hop_latency_s(t);
  r.alpha_inter = inter_hop_latency_s(t);
  return r;
}

/// NCCL's tables for this cluster: the column by node count, the LL row by GPU (one node) or CPU (several).
struct Ceilings {
  double ll = 0, ring_ll128 = 0, tree_ll128 = 0, tree = 0; // bytes/s: LL per GPU, the others per channel
};

Ceilings ceilings_of(const Topology& t, int nodes)
{
  Ceilings c;
  if (!t.nccl.arch)
    return c;
  const auto arch = static_cast<std::size_t>(*t.nccl.arch);
  const auto col  = static_cast<std::size_t>(nodes <= 1 ? 0 : (nodes == 2 ? 1 : 2));
  const auto row  = nodes == 1 ? arch : static_cast<std::size_t>(t.nccl.cpu == CpuVendor::AMD ? 1 : 0);
  const auto& scale = t.nccl.ceiling_scale;
  c.ll         = scale[0] * k::kLlMaxBw[row][col] * GBPS;
  c.ring_ll128 = scale[1] * k::kRingLl128ChannelBw[arch][col] * GBPS;
  c.tree_ll128 = scale[1] * k::kTreeLl128ChannelBw[arch][col] * GBPS;
  c.tree       = scale[2] * k::kTreeChannelBw[arch][col] * GBPS;
  return c;
}

/// Per-hop latencies of NCCL's tables for an algorithm and protocol, with the topology's calibrated scale and extras.
double intra_latency(const Topology& t, Algo a, Proto p)
{
  const auto i = static_cast<std::size_t>(proto_index(p));
  const k::Row3& row = a == Algo::TREE ? (t.intra_pcie ? k::kPciTree : k::kNvlinkTree)
                       : (a == Algo::NVLS || a == Algo::NVLS_TREE) ? k::kNvlinkNvls
                                                                   : (t.intra_pcie ? k::kPciRing : k::kNvlinkRing);
  return row[i] * US * t.nccl.intra_latency_scale;
}

double net_latency(const Topology& t, Algo a, Proto p, bool one_per_node)
{
  const auto i = static_cast<std::size_t>(proto_index(p));
  // tuning.cc:387: with one rank per node the ring pays the tree's network latency.
  const k::Row3& row = (a == Algo::TREE || one_per_node) ? k::kNetTree
                       : a == Algo::NVLS_TREE            ? k::kNetNvlsTree
                                                         : k::kNetRing;
  return row[i] * US + t.nccl.net_extra_s[i];
}

/// Bytes one channel moves per pipeline step: NCCL's defaults and its shrinking of small transfers (enqueue.cc:2254-2289,
/// transport/nvls.cc:228-230).
double chunk_bytes(Algo a, Proto p, double S, int channels, int per_node, int nodes)
{
  if (a == Algo::NVLS_TREE) {
    const double ops = static_cast<double>(channels) * per_node;
    double c         = nodes < 4 ? k::kChunkNvls : 65536;
    for (const auto& [mult, floor] : {std::pair{32.0, 262144.0}, {16.0, 131072.0}, {4.0, 65536.0}, {1.0, 32768.0}})
      if (S < mult * ops * c && c > floor)
        c = floor;
    return c;
  }
  if (a == Algo::NVLS) {
    const double ops = static_cast<double>(channels) * per_node;
    double c         = k::kChunkNvls;
    for (const auto& [mult, floor] : {std::pair{64.0, 65536.0}, {8.0, 32768.0}, {2.0, 16384.0}})
      if (S < mult * ops * c && c > floor)
        c = floor;
    return c;
  }
  if (a == Algo::TREE && p == Proto::LL128) {
    const double ppn    = per_node;
    const double nsteps = 1 + log2_floor(nodes) + 0.1 * ppn;
    double c            = k::kChunkLl128;
    while (std::floor(S / (channels * c)) < nsteps * 64 / ppn && c > 131072)
      c /= 2;
    while (std::floor(S / (channels * c)) < nsteps * 16 / ppn && c > 32768)
      c /= 2;
    return c;
  }
  return p == Proto::LL ? k::kChunkLl : (p == Proto::LL128 ? k::kChunkLl128 : k::kChunkSimple);
}

int ring_rounds_of(Collective c, int n)
{
  return c == Collective::ALL_REDUCE ? 2 * (n - 1) : n - 1;
}

/// Which algorithms exist for the collective on the group (tuning.cc:295-303, :490-505), before NCCL_ALGO.
std::vector<Algo> algorithms_for(const Topology& t, Collective c, const GroupShape& g)
{
  if (c == Collective::ALL_TO_ALL || c == Collective::SEND_RECV)
    return {Algo::DIRECT};
  const bool nvls = t.nccl.nvls && t.nccl.arch && *t.nccl.arch >= GpuArch::HOPPER && !t.intra_pcie && g.per_node > 1 &&
                    g.uniform;
  std::vector<Algo> out{Algo::RING};
  if (c == Collective::ALL_REDUCE) {
    if (g.uniform)
      out.push_back(Algo::TREE);
    if (nvls && g.nodes == 1)
      out.push_back(Algo::NVLS);
    if (nvls && g.nodes > 1)
      out.push_back(Algo::NVLS_TREE);
  } else if (nvls && g.nodes == 1) {
    out.push_back(Algo::NVLS);
  }
  // What the cluster's NCCL release predates does not exist for it (sim/platform/NcclVersion.hpp).
  std::erase_if(out, [&](Algo a) { return !release_has(t.nccl.version, a); });
  return out;
}

bool allowed(const std::vector<Algo>& list, Algo a)
{
  return list.empty() || std::find(list.begin(), list.end(), a) != list.end();
}

bool allowed(const std::vector<Proto>& list, Proto p)
{
  return list.empty() || std::find(list.begin(), list.end(), p) != list.end();
}

/// The protocol NCCL's p2p path takes (enqueue.cc:859: LL up to 16 KiB per channel of a peer, Simple beyond), within
/// NCCL_PROTO.
Proto p2p_protocol(const Topology& t, Collective c, const GroupShape& g, double S)
{
  const double per_peer = c == Collective::ALL_TO_ALL ? S / std::max(1, g.ranks) : S;
  const bool ll         = per_peer <= k::kP2pChannels * k::kP2pLlThreshold;
  const Proto want      = ll ? Proto::LL : Proto::SIMPLE;
  if (allowed(t.nccl.protocols, want))
    return want;
  for (const Proto p : {Proto::SIMPLE, Proto::LL128, Proto::LL})
    if (allowed(t.nccl.protocols, p))
      return p;
  return Proto::SIMPLE;
}
} // namespace

double intra_hop_latency_s(const Topology& topo)
{
  return topo.intra_node_latency_s() * (topo.network_model == NetworkModel::TCP ? LV08_LATENCY_FACTOR : 1.0);
}

double inter_hop_latency_s(const Topology& topo)
{
  return topo.inter_node_latency_s() * (topo.network_model == NetworkModel::TCP ? LV08_LATENCY_FACTOR : 1.0);
}

std::uint64_t wire_bytes(double data_bytes, Proto p)
{
  return static_cast<std::uint64_t>(std::ceil(data_bytes / protocol_efficiency(p) - 1e-9));
}

double tree_intra_share(int per_node, int degree)
{
  const double g = per_node;
  return std::max(0.0, (g - 1) / g - degree / (4 * g));
}

GroupShape group_shape(const Group& group, int gpus_per_node)
{
  GroupShape s;
  s.ranks = static_cast<int>(group.size());
  std::map<int, int> per;
  for (const int r : group)
    ++per[r / gpus_per_node];
  s.nodes = static_cast<int>(per.size());
  for (const auto& [node, count] : per) {
    s.per_node = std::max(s.per_node, count);
    s.uniform  = s.uniform && count == per.begin()->second;
  }
  return s;
}

NcclGraphs group_graphs(const Topology& t, const GroupShape& g)
{
  GraphInputs in;
  in.arch          = t.nccl.arch.value_or(GpuArch::HOPPER);
  in.gpus_per_node = std::max(1, g.per_node);
  in.nodes         = std::max(1, g.nodes);
  in.pcie          = t.intra_pcie;
  in.nvlink_gbytes = t.intra_nominal_bytes_per_s / GBPS;
  in.nic_gbytes    = t.nic_nominal_bytes_per_s / GBPS;
  in.nics          = std::max(1, t.nic_count * in.gpus_per_node / std::max(1, t.gpus_per_node));
  in.nvls          = t.nccl.nvls;
  in.channels      = t.nccl.channels;
  return nccl_graphs(in);
}

namespace {
CollectivePlan plan_links(const Topology& t, Collective c, const GroupShape& g, std::uint64_t bytes, Algo a, Proto p,
                          int channels);
} // namespace

CollectivePlan plan_collective(const Topology& t, Collective c, const GroupShape& g, std::uint64_t bytes, Algo a,
                               Proto p, int channels)
{
  auto plan = plan_links(t, c, g, bytes, a, p, channels);
  if (plan.floor_s > plan.links_s)
    plan.bottleneck = "gpu"; // a protocol kernel's ceiling or the NICs the channels reach, not a link
  return plan;
}

namespace {
CollectivePlan plan_links(const Topology& t, Collective c, const GroupShape& g, std::uint64_t bytes, Algo a, Proto p,
                          int channels)
{
  const Rates r   = rates_of(t, g);
  const double S  = static_cast<double>(bytes);
  const int n = g.ranks, N = std::max(1, g.nodes), gl = std::max(1, g.per_node);
  const bool nccl_latency = t.nccl.present && t.nccl.latency == LatencyModel::NCCL;
  const bool multi        = N > 1;
  const double alpha      = multi ? r.alpha_inter : r.alpha_intra;
  CollectivePlan plan;
  plan.algo  = a;
  plan.proto = p;
  int C      = 1;
  if (r.tables) {
    const auto graphs = group_graphs(t, g);
    C = a == Algo::TREE ? graphs.tree.channels
        : (a == Algo::NVLS || a == Algo::NVLS_TREE) ? (graphs.nvls ? graphs.nvls->channels : gl)
        : a == Algo::DIRECT                          ? k::kP2pChannels
                                                     : graphs.ring.channels;
  }
  if (channels > 0)
    C = channels;
  plan.channels  = C;
  const auto cap = ceilings_of(t, N);
  const double base_extra = t.nccl.base_extra_s;
  const auto pi           = static_cast<std::size_t>(proto_index(p));
  // The NICs the channels reach: fewer channels than the group's NICs leave some unused (a channel crosses one NIC).
  const double channel_nics = r.tables ? std::min<double>(C, r.group_nics) : r.nics;
  auto note = [&](double links_port, double links_nic) {
    plan.links_s    = std::max(links_port, links_nic);
    plan.bottleneck = links_nic > links_port ? "nic" : "nvlink";
  };

  if (a == Algo::RING || a == Algo::HIERARCHICAL) {
    if (a == Algo::RING) {
      const int R          = ring_rounds_of(c, n);
      const double chunk   = std::ceil(S / n);
      const double data    = R * chunk;
      const double wire    = static_cast<double>(wire_bytes(data, p));
      note(wire / r.port, multi ? wire / std::min(r.port, r.uplink) : 0);
      if (r.tables) {
        if (p == Proto::LL)
          plan.floor_s = data / cap.ll;
        else if (p == Proto::LL128)
          plan.floor_s = data / (C * cap.ring_ll128);
        if (multi && channel_nics < r.nics)
          plan.floor_s = std::max(plan.floor_s, wire / (channel_nics * r.nic));
      }
      if (nccl_latency) {
        const int n_inter     = multi ? (c == Collective::ALL_REDUCE ? 2 * (N - 1) : N - 1) : 0;
        const double overhead = multi ? (t.nccl.cpu == CpuVendor::AMD ? k::kNetOverheadAmd : k::kNetOverheadIntel) *
                                            (p == Proto::SIMPLE ? 3 : 1) * US
                                      : 0.0;
        plan.latency_s = k::kBaseLatencyRing[pi] * US + base_extra +
                         (R - n_inter) * std::max(intra_latency(t, a, p), overhead) +
                         n_inter * net_latency(t, a, p, gl == 1);
      } else {
        plan.latency_s = R * alpha; // one route latency per round (ccsim's ring)
      }
    } else { // ccsim's hierarchical all-reduce: intra reduce-scatter, one inter-node ring per local index, all-gather
      const double shard = std::ceil(S / gl);
      const double intra = (gl - 1) * shard / r.port;
      const double each  = 2.0 * (N - 1) * std::ceil(shard / N); // one inter ring's flow
      plan.links_s    = 2 * intra + std::max(gl * each / r.uplink, each / r.port);
      plan.bottleneck = "nic";
      plan.latency_s  = 2 * (gl - 1) * r.alpha_intra + 2 * (N - 1) * r.alpha_inter;
    }
    return plan;
  }

  if (a == Algo::TREE) {
    const auto degrees = tree_degrees(N);
    double port = 0, up = 0; // the busiest port and uplink, wire bytes
    int max_degree = 0;
    for (const int d : (N > 1 ? degrees : std::vector<int>{0})) {
      const double intra = gl > 1 ? 2 * static_cast<double>(wire_bytes(tree_intra_share(gl, d) * S, p)) : 0;
      const double inter = static_cast<double>(wire_bytes(S / (2.0 * gl), p)) * d;
      port       = std::max(port, intra + inter);
      up         = std::max(up, inter * gl);
      max_degree = std::max(max_degree, d);
    }
    note(port / r.port, multi ? up / r.uplink : 0);
    if (r.tables) {
      plan.floor_s = 2 * S / (p == Proto::LL ? cap.ll : C * (p == Proto::LL128 ? cap.tree_ll128 : cap.tree));
      if (multi && channel_nics < r.nics)
        plan.floor_s = std::max(plan.floor_s, up / (channel_nics * r.nic));
    }
    plan.latency_s = nccl_latency ? k::kBaseLatencyTree[pi] * US + base_extra +
                                        2 * ((gl - 1) * intra_latency(t, a, p) + log2_floor(N) * net_latency(t, a, p, false))
                                  : 2 * ((gl - 1) * r.alpha_intra + log2_floor(N) * r.alpha_inter);
    if (t.nccl.fill_tree > 0 && S > 0) {
      const double chunk   = std::min(S / C, chunk_bytes(a, p, S, C, gl, N));
      const double r_intra = protocol_efficiency(p) * r.port / C;
      const double r_inter = protocol_efficiency(p) * channel_nics * r.nic / C;
      plan.fill_s = t.nccl.fill_tree * chunk * (2.0 * (gl - 1) / r_intra + (multi ? 2.0 * log2_floor(N) / r_inter : 0));
    }
    return plan;
  }

  if (a == Algo::NVLS || a == Algo::NVLS_TREE) {
    const double share = (a == Algo::NVLS && c != Collective::ALL_REDUCE) ? (gl - 1.0) / gl : 1.0;
    double links = share * S / r.nvls, up = 0;
    if (a == Algo::NVLS_TREE)
      for (const int d : tree_degrees(N)) {
        const double inter = static_cast<double>(wire_bytes(S / (2.0 * gl), p)) * d;
        links              = std::max(links, inter / r.port);
        up                 = std::max(up, inter * gl);
      }
    plan.links_s    = std::max(links, up / r.uplink);
    plan.bottleneck = up / r.uplink > links ? "nic" : "nvls";
    if (r.tables && multi && channel_nics < r.nics)
      plan.floor_s = up / (channel_nics * r.nic);
    if (nccl_latency)
      plan.latency_s = intra_latency(t, a, p) + base_extra +
                       (a == Algo::NVLS_TREE ? 2 * log2_floor(N) * net_latency(t, a, p, false) : 0);
    else
      plan.latency_s = r.alpha_intra + (a == Algo::NVLS_TREE ? 2 * log2_floor(N) * r.alpha_inter : 0);
    const double fill = a == Algo::NVLS ? t.nccl.fill_nvls : t.nccl.fill_nvls_tree;
    if (fill > 0 && S > 0) {
      const double chunk   = std::min(S / C, chunk_bytes(a, p, S, C, gl, N));
      const double r_inter = channel_nics * r.nic / C;
      plan.fill_s = fill * chunk * (2.0 / (r.nvls / C) + (a == Algo::NVLS_TREE ? 2.0 * log2_floor(N) / r_inter : 0));
    }
    return plan;
  }

  // DIRECT: NCCL's point-to-point (send/recv, all-to-all).
  if (c == Collective::SEND_RECV) {
    const double wire = static_cast<double>(wire_bytes(S, p));
    const bool intra_flows = gl > 1 || N == 1; // pairs inside a node send over NVLink at the p2p rate
    note(intra_flows ? wire / r.p2p : 0, multi ? wire / std::min(r.port, r.uplink) : 0);
    if (r.tables && multi) // a GPU's send leaves through its own NIC(s)
      plan.floor_s = wire / r.rail;
  } else { // ALL_TO_ALL: S/n to every rank; across nodes each GPU forwards what goes to its rail peers (PXN)
    const double piece = std::ceil(S / n);
    const double intra = (gl - 1) * static_cast<double>(wire_bytes(piece, p)) * r.port / r.p2p;
    const double inter = (N - 1) * static_cast<double>(wire_bytes(gl * piece, p));
    note((intra + inter) / r.port, multi ? gl * inter / r.uplink : 0);
  }
  if (nccl_latency)
    plan.latency_s = k::kBaseLatencyRing[pi] * US + base_extra +
                     (multi ? net_latency(t, Algo::RING, p, gl == 1) : intra_latency(t, Algo::RING, p));
  else
    plan.latency_s = alpha;
  return plan;
}

} // namespace

std::vector<CollectivePlan> collective_candidates(const Topology& t, Collective c, const GroupShape& g,
                                                  std::uint64_t bytes)
{
  std::vector<CollectivePlan> out;
  if (!t.nccl.present) { // ccsim's own: the legacy rule's one choice
    out.push_back(choose_collective(t, c, g, bytes));
    return out;
  }
  for (const Algo a : algorithms_for(t, c, g)) {
    if (!allowed(t.nccl.algorithms, a))
      continue;
    if (a == Algo::DIRECT) {
      out.push_back(plan_collective(t, c, g, bytes, a, p2p_protocol(t, c, g, static_cast<double>(bytes))));
      continue;
    }
    for (const Proto p : kProtocols) {
      if (!allowed(t.nccl.protocols, p) || !release_has(t.nccl.version, p))
        continue;
      if ((a == Algo::NVLS || a == Algo::NVLS_TREE) && p != Proto::SIMPLE)
        continue; // tuning.cc:298
      out.push_back(plan_collective(t, c, g, bytes, a, p));
    }
  }
  return out;
}

CollectivePlan choose_collective(const Topology& t, Collective c, const GroupShape& g, std::uint64_t bytes,
                                 Algo requested)
{
  if (!t.nccl.present || requested == Algo::HIERARCHICAL) {
    // ccsim's own rule: hierarchical for an all-reduce across nodes of several ranks each, ring otherwise.
    Algo a = requested == Algo::AUTO && t.nccl.algorithms.size() == 1 ? t.nccl.algorithms.front() : requested;
    if (c == Collective::ALL_TO_ALL || c == Collective::SEND_RECV)
      a = Algo::DIRECT;
    else if (a == Algo::AUTO)
      a = (c == Collective::ALL_REDUCE && g.nodes > 1 && g.per_node > 1 && g.uniform) ? Algo::HIERARCHICAL : Algo::RING;
    if (a == Algo::HIERARCHICAL && !(c == Collective::ALL_REDUCE && g.uniform && g.nodes > 1))
      a = Algo::RING;
    return plan_collective(t, c, g, bytes, a, Proto::SIMPLE);
  }
  auto cands = collective_candidates(t, c, g, bytes);
  if (requested != Algo::AUTO) {
    std::erase_if(cands, [&](const CollectivePlan& p) { return p.algo != requested; });
    if (cands.empty())
      return plan_collective(t, c, g, bytes, requested, Proto::SIMPLE);
  }
  if (cands.empty()) // NCCL_ALGO excludes every algorithm this group can run: NCCL falls back to the ring
    return plan_collective(t, c, g, bytes, c == Collective::ALL_TO_ALL || c == Collective::SEND_RECV ? Algo::DIRECT : Algo::RING,
                           Proto::SIMPLE);
  for (const auto& e : t.nccl.tuner_table) {
    if (bytes > e.max_bytes)
      continue;
    const bool listed = std::any_of(cands.begin(), cands.end(),
                                    [&](const CollectivePlan& p) { return p.algo == e.algo && p.proto == e.proto; });
    if (listed)
      return plan_collective(t, c, g, bytes, e.algo, e.proto, e.channels);
    break;
  }
  auto fastest = [](const std::vector<CollectivePlan>& v) {
    return *std::min_element(v.begin(), v.end(),
                             [](const CollectivePlan& a, const CollectivePlan& b) { return a.seconds() < b.seconds(); });
  };
  if (t.nccl.selection == Selection::NCCL && t.nccl.arch &&
      (c == Collective::ALL_REDUCE || c == Collective::ALL_GATHER || c == Collective::REDUCE_SCATTER)) {
    // NCCL's own estimate picks; within 10 % of its minimum the emulated graph cannot tell, so the calibrated model
    // settles those near-ties. NCCL 2.7's tuner (NcclTunerV27.cpp, the release's own constants) rates every
    // algorithm beyond two nodes at the network's speed on the same channels, so no graph error reorders them there:
    // its pick stands. At two nodes or fewer it rates each by its own graph's intra-node speed, which the search
    // raises for trees where the node's links allow (NcclGraph.cpp), and the band applies.
    const double band = runs_v27_tuner(t.nccl.version) && g.nodes > 2 ? 0.0 : kNearTie;
    const auto graphs = group_graphs(t, g);
    const TunerInputs in{c, g.ranks, std::max(1, g.nodes), *t.nccl.arch, t.nccl.cpu, t.intra_pcie, t.nccl.version};
    std::vector<std::pair<double, const CollectivePlan*>> est;
    for (const auto& p : cands)
      if (const auto e = nccl_estimate_s(in, graphs, p.algo, p.proto, bytes))
        est.emplace_back(*e, &p);
    if (!est.empty()) {
      double lo = std::numeric_limits<double>::infinity();
      for (const auto& [e, p] : est)
        lo = std::min(lo, e);
      std::vector<CollectivePlan> near;
      for (const auto& [e, p] : est)
        if (e <= lo * (1 + band))
          near.push_back(*p);
      return fastest(near);
    }
  }
  return fastest(cands);
}

} // namespace ccsim::sim
