// The flows of NCCL's algorithms; see NcclFlows.hpp.
#include "sim/nccl/NcclFlows.hpp"

#include "sim/nccl/DoubleTree.hpp"
#include "sim/nccl/NcclConstants.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

namespace ccsim::sim {

namespace {
/// Flows keyed by (source, destination), in order of first appearance: two logical flows between the same GPUs (a
/// 2-GPU node's two neighbours, two tree edges joining the same nodes) become one carrying both.
class FlowSet {
public:
  void add(int src, int dst, std::uint64_t bytes)
  {
    if (bytes == 0 || src == dst)
      return;
    const auto [it, fresh] = index_.emplace(std::make_pair(src, dst), flows_.size());
    if (fresh)
      flows_.push_back({src, dst, bytes});
    else
      flows_[it->second].bytes += bytes;
  }
  /// A flow of its own even where one joins the same GPUs: the tree's edges each carry their half of the buffer, and
  /// flows of one size let max-min sharing reach the busiest NIC's bound (a merged flow of twice the bytes, between
  /// two nodes joined in both trees, would finish after its neighbours and leave that NIC idle at the end).
  void add_separate(int src, int dst, std::uint64_t bytes)
  {
    if (bytes != 0 && src != dst)
      flows_.push_back({src, dst, bytes});
  }
  const std::vector<Flow>& flows() const { return flows_; }

private:
  std::map<std::pair<int, int>, std::size_t> index_;
  std::vector<Flow> flows_;
};

/// The group's members node by node, in group order.
std::vector<Group> members_by_node(const Group& g, int gpus_per_node)
{
  std::map<int, Group> by;
  for (const int r : g)
    by[r / gpus_per_node].push_back(r);
  std::vector<Group> out;
  for (auto& [node, members] : by)
    out.push_back(std::move(members));
  return out;
}

std::uint64_t scaled(std::uint64_t bytes, double factor)
{
  return static_cast<std::uint64_t>(std::llround(static_cast<double>(bytes) * factor));
}

/// Rounds out[0, count) exist; each gets `flows` and its share (1 / count) of the latency and the floor.
void put_rounds(std::vector<Round>& out, const std::vector<Flow>& flows, int count, double latency_s, double floor_s,
                int extra_terms)
{
  if (flows.empty())
    return;
  if (out.size() < static_cast<std::size_t>(count))
    out.resize(static_cast<std::size_t>(count));
  for (int k = 0; k < count; ++k) {
    auto& r         = out[static_cast<std::size_t>(k)];
    const bool first = r.flows.empty();
    r.flows.insert(r.flows.end(), flows.begin(), flows.end());
    if (latency_s >= 0)
      r.latency_s = std::max(r.latency_s, latency_s / count);
    r.floor_s             = first ? floor_s / count : std::min(r.floor_s, floor_s / count);
    r.extra_latency_terms = std::max(r.extra_latency_terms, extra_terms);
  }
}

/// The tree's flows (tree_intra_share inside nodes, the double binary tree across them) for `S` bytes of buffer.
void tree_flows(FlowSet& f, const std::vector<Group>& nodes, double S, Proto p, bool nvls, double nvls_ratio)
{
  const int N  = static_cast<int>(nodes.size());
  const int gl = static_cast<int>(nodes.front().size());
  const auto degree = tree_degrees(N);
  const std::uint64_t edge = N > 1 ? wire_bytes(S / (2.0 * gl), p) : 0; // one tree's half, one rail, one way
  for (int a = 0; a < N; ++a) {
    const auto& m = nodes[static_cast<std::size_t>(a)];
    const int d   = N > 1 ? degree[static_cast<std::size_t>(a)] : 0;
    if (gl < 2)
      continue;
    if (nvls) { // NVLS: each GPU's port moves S at the NVLS rate, less what its NIC traffic takes of it
      const double bytes = std::max(0.0, S * nvls_ratio - static_cast<double>(edge) * d);
      for (int j = 0; j < gl; ++j)
        f.add(m[static_cast<std::size_t>(j)], m[static_cast<std::size_t>((j + 1) % gl)],
              static_cast<std::uint64_t>(std::llround(bytes)));
    } else {
      const std::uint64_t each = wire_bytes(tree_intra_share(gl, d) * S, p);
      for (int j = 0; j < gl; ++j) {
        f.add(m[static_cast<std::size_t>(j)], m[static_cast<std::size_t>((j + 1) % gl)], each);
        f.add(m[static_cast<std::size_t>(j)], m[static_cast<std::size_t>((j + gl - 1) % gl)], each);
      }
    }
  }
  if (N < 2)
    return;
  for (const auto& tree : double_binary_tree(N))
    for (const auto& [parent, child] : tree)
      for (int j = 0; j < gl; ++j) {
        const int up   = nodes[static_cast<std::size_t>(parent)][static_cast<std::size_t>(j)];
        const int down = nodes[static_cast<std::size_t>(child)][static_cast<std::size_t>(j)];
        f.add_separate(down, up, edge); // reduce
        f.add_separate(up, down, edge); // broadcast
      }
}

/// Pipeline steps simulated as rounds in EXACT fidelity: one 512 KiB chunk per channel each (NCCL's Simple step), at
/// most 64 so that a large buffer stays affordable.
int pipeline_steps(double S, int channels)
{
  const double steps = std::ceil(S / (std::max(1, channels) * nccl_constants::kChunkSimple));
  return static_cast<int>(std::clamp(steps, 1.0, 64.0));
}
} // namespace

void add_nccl_rounds(std::vector<Round>& out, const CollectivePlan& plan, Collective collective, const Group& group,
                     std::uint64_t bytes, Fidelity fidelity, const Topology& topo)
{
  const int n = static_cast<int>(group.size());
  if (n < 2 || bytes == 0)
    return;
  const bool exact      = fidelity == Fidelity::EXACT;
  const bool nccl_lat   = topo.nccl.present && topo.nccl.latency == LatencyModel::NCCL;
  const double latency  = plan.latency_s + plan.fill_s;
  const double S        = static_cast<double>(bytes);
  const double p2p_ratio = topo.intra_bytes_per_s / topo.nccl.p2p_bytes_per_s.value_or(topo.intra_bytes_per_s);

  if (plan.algo == Algo::RING) {
    // Each rank sends to the next; FAST: one flow carrying every step's chunk, EXACT: one round per step.
    const int R            = collective == Collective::ALL_REDUCE ? 2 * (n - 1) : n - 1;
    const std::uint64_t ch = (bytes + static_cast<std::uint64_t>(n) - 1) / static_cast<std::uint64_t>(n);
    const std::uint64_t w  = exact ? wire_bytes(static_cast<double>(ch), plan.proto)
                                   : wire_bytes(static_cast<double>(ch) * R, plan.proto);
    // Between nodes over NCCL's socket transport, a hop is NCCL's channels' connections (connect.cc ncclTopoPostset
    // duplicates the searched channels: 2 x, unless NCCL_MIN/MAX_NCHANNELS force the count) times the socket threads
    // each connection spreads its data over (net_socket.cc: a message in max(64 KiB, size / sockets) tasks, sockets
    // served by NCCL_SOCKET_NTHREADS threads): that many flows, each under the per-flow ceiling (issue 48).
    const int split = !topo.nccl.socket_threads ? 1
                      : (topo.nccl.channels ? plan.channels : 2 * plan.channels) * *topo.nccl.socket_threads;
    std::vector<Flow> flows;
    for (int i = 0; i < n; ++i) {
      const int src = group[static_cast<std::size_t>(i)], dst = group[static_cast<std::size_t>((i + 1) % n)];
      if (split == 1 || src / topo.gpus_per_node == dst / topo.gpus_per_node) {
        flows.push_back({src, dst, w});
        continue;
      }
      for (int k = 0; k < split; ++k) // equal parts, the remainder on the first
        flows.push_back({src, dst, w / static_cast<std::uint64_t>(split) + (k == 0 ? w % static_cast<std::uint64_t>(split) : 0)});
    }
    // Latency from the links: every step pays its route (FAST owes the R-1 steps it collapsed), as ccsim always has.
    put_rounds(out, flows, exact ? R : 1, nccl_lat ? latency : -1, plan.floor_s, !nccl_lat && !exact ? R - 1 : 0);
    return;
  }
  const auto nodes = members_by_node(group, topo.gpus_per_node);
  if (plan.algo == Algo::TREE || plan.algo == Algo::NVLS || plan.algo == Algo::NVLS_TREE) {
    const bool nvls   = plan.algo != Algo::TREE;
    const int steps   = exact ? pipeline_steps(S, plan.channels) : 1;
    const double part = S / steps;
    const double share = (plan.algo == Algo::NVLS && collective != Collective::ALL_REDUCE)
                             ? (static_cast<double>(nodes.front().size()) - 1) / static_cast<double>(nodes.front().size())
                             : 1.0;
    const double nvls_ratio = nvls ? share * topo.intra_bytes_per_s / topo.nccl.nvls_bytes_per_s.value_or(1) : 0;
    FlowSet f;
    tree_flows(f, nodes, part, plan.proto, nvls, nvls_ratio);
    put_rounds(out, f.flows(), steps, latency, plan.floor_s, 0);
    return;
  }
  // DIRECT: NCCL's point-to-point.
  FlowSet f;
  auto same_node = [&](int a, int b) { return a / topo.gpus_per_node == b / topo.gpus_per_node; };
  if (collective == Collective::SEND_RECV) {
    const std::uint64_t w = wire_bytes(S, plan.proto);
    for (int i = 0; i < n; ++i) {
      const int src = group[static_cast<std::size_t>(i)], dst = group[static_cast<std::size_t>((i + 1) % n)];
      f.add(src, dst, same_node(src, dst) ? scaled(w, p2p_ratio) : w);
    }
  } else { // ALL_TO_ALL
    const std::uint64_t piece = (bytes + static_cast<std::uint64_t>(n) - 1) / static_cast<std::uint64_t>(n);
    const std::uint64_t w     = wire_bytes(static_cast<double>(piece), plan.proto);
    for (const auto& a : nodes)
      for (const auto& b : nodes) {
        if (&a == &b || exact) { // every piece its own message
          for (const int src : a)
            for (const int dst : b)
              if (src != dst)
                f.add(src, dst, same_node(src, dst) ? scaled(w, p2p_ratio) : w);
          continue;
        }
        // Between two nodes: one flow per rail, GPU j to GPU j, carrying the pieces PXN forwards to j's peers.
        const std::size_t rails = std::min(a.size(), b.size());
        const std::uint64_t all = wire_bytes(static_cast<double>(piece) * a.size() * b.size() / rails, plan.proto);
        for (std::size_t j = 0; j < rails; ++j)
          f.add(a[j], b[j], all);
      }
  }
  put_rounds(out, f.flows(), 1, nccl_lat ? latency : -1, plan.floor_s, 0);
}

} // namespace ccsim::sim
