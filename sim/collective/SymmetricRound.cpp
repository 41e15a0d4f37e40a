// Symmetric rounds reduced to half flows through the fabric port; the reasoning is in SymmetricRound.hpp.
#include "sim/collective/SymmetricRound.hpp"

#include <simgrid/s4u.hpp>
#include <xbt/config.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <tuple>

namespace sg4 = simgrid::s4u;

namespace ccsim::sim {

namespace {

/// A flow as its node sees it: local source index, local destination index, bytes.
using Local = std::tuple<int, int, std::uint64_t>;

/// SimGrid's weight of a flow from `src` to `dst` (NetworkCm02Model::communicate: route latency plus weight-S over
/// each link's bandwidth) and its TCP-window bound (TCP-gamma / (2 x route latency)).
struct RouteWeight {
  double penalty = 0;
  double window_bound = 0;
};

RouteWeight route_weight(sg4::Host* src, sg4::Host* dst)
{
  std::vector<sg4::Link*> route;
  double latency = 0;
  src->route_to(dst, route, &latency);
  const double weight_s = simgrid::config::get_value<double>("network/weight-S");
  RouteWeight w;
  w.penalty = latency;
  if (weight_s > 0)
    for (const auto* l : route)
      w.penalty += weight_s / l->get_bandwidth();
  const double gamma = simgrid::config::get_value<double>("network/TCP-gamma");
  w.window_bound     = latency > 0 && gamma > 0 ? gamma / (2 * latency) : std::numeric_limits<double>::infinity();
  return w;
}

/// One kind of inter-node flow on a GPU port: how many cross it (forward, plus 5 % of the reverse ones), each wanting at
/// most `demand` bytes/s (the share of the link that limits it), with SimGrid weight `weight`.
struct PortClass {
  double count;
  double demand;
  double weight;
};

/// Whether a GPU port of `rate` could hold any inter-node flow below its demand. Weighted max-min raises every flow of
/// the port to level / weight until the port is full; a flow limited elsewhere stops at its demand. Take the level at
/// which every inter-node flow has reached its demand: if the port is not full there (the intra-node flows, limited
/// nowhere else, at level / weight; the inter-node ones at their demands), no inter-node flow meets the port.
bool port_can_limit(double rate, double intra_terms, const std::vector<PortClass>& classes)
{
  double level = 0;
  for (const auto& c : classes)
    level = std::max(level, c.demand * c.weight);
  double load = intra_terms * level;
  for (const auto& c : classes)
    load += c.count * c.demand;
  return load > rate;
}

/// A round in which every node sends its inter-node flows to one other node, at most one from each GPU and at most one
/// into each GPU (a ring step, or a hierarchical all-reduce's rings of same-position GPUs), alike on every node (every
/// leaf on a fat-tree). The flows between two nodes then share their NICs and leaf uplink only with each other but for
/// 5 % of the reverse ones, so the half flows stand for exactly one real flow each and no weight is needed: one node
/// (one leaf) is simulated, its flows that leave or enter it as halves. A 16,384-GPU ring step: 16,384 flows become 9
/// (257 on the fat-tree).
std::optional<std::vector<Flow>> reduce_ring_round(const Round& round, const Platform& platform, const Topology& topo,
                                                   int g, int m)
{
  const bool tree = topo.fabric == FabricKind::FAT_TREE;
  const int p     = tree ? topo.nodes_per_leaf : 1; // nodes simulated: the translation period
  if (tree ? (m % p != 0 || m == p || !topo.leaf_uplink_share.empty()) : !platform.fabric_links.empty())
    return std::nullopt; // (a core joins every node: all would be simulated, nothing to gain)
  struct Inter {
    int ls, ld, peer; // local source, local destination, the other node (as an offset)
    std::uint64_t bytes;
    auto operator<=>(const Inter&) const = default;
  };
  std::vector<std::vector<Local>> intra(static_cast<std::size_t>(m));
  std::vector<std::vector<Inter>> out(static_cast<std::size_t>(m)), in(static_cast<std::size_t>(m));
  std::vector<char> sends(static_cast<std::size_t>(m) * g, 0), receives(static_cast<std::size_t>(m) * g, 0);
  // The one node each node sends to (receives from). On a fat-tree which one it is matters (near or far, as an offset
  // alike on every node); on a star every other node is reached through the same kind of route, so any permutation
  // of nodes will do: a ring's closing flow (the last node to the first) is then like any other.
  std::vector<int> sends_to(static_cast<std::size_t>(m), -1), receives_from(static_cast<std::size_t>(m), -1);
  for (const auto& f : round.flows) {
    const int a = f.src / g, b = f.dst / g;
    if (a == b) {
      intra[static_cast<std::size_t>(a)].emplace_back(f.src - a * g, f.dst - a * g, f.bytes);
      continue;
    }
    if (sends[static_cast<std::size_t>(f.src)]++ || receives[static_cast<std::size_t>(f.dst)]++)
      return std::nullopt; // a second inter-node flow out of (into) one GPU
    auto& to = sends_to[static_cast<std::size_t>(a)];
    auto& from = receives_from[static_cast<std::size_t>(b)];
    if ((to >= 0 && to != b) || (from >= 0 && from != a))
      return std::nullopt; // one peer node per side
    to = b;
    from = a;
    const Inter flow{f.src - a * g, f.dst - b * g, tree ? (b - a + m) % m : 0, f.bytes};
    out[static_cast<std::size_t>(a)].push_back(flow);
    in[static_cast<std::size_t>(b)].push_back(flow);
  }
  for (auto& flows : intra)
    std::sort(flows.begin(), flows.end());
  for (auto* side : {&out, &in})
    for (auto& flows : *side)
      std::sort(flows.begin(), flows.end());
  if (out[0].empty())
    return std::nullopt;
  const std::uint64_t size = out[0].front().bytes;
  for (int a = 0; a < m; ++a) {
    const auto i = static_cast<std::size_t>(a), r = static_cast<std::size_t>(a % p);
    if (intra[i] != intra[r] || out[i] != out[r] || in[i] != in[r] || out[i].empty() || in[i].empty())
      return std::nullopt;
    for (const auto* side : {&out[i], &in[i]}) // (one peer node per side: checked as the flows were sorted out)
      for (const auto& f : *side)
        if (f.bytes != size)
          return std::nullopt; // one size
  }
  const auto leaf_of = [&](int node) { return node / p; };
  const auto target  = [&](int a) { return sends_to[static_cast<std::size_t>(a)]; };
  const auto source  = [&](int b) { return receives_from[static_cast<std::size_t>(b)]; };
  int far_out = 0;
  for (int r = 0; r < p; ++r)
    far_out += leaf_of(target(r)) != 0 ? 1 : 0;
  if (tree && far_out > 1)
    return std::nullopt; // a leaf uplink shared by the flows of several nodes
  // A flow that becomes halves must look alike at its two ends: the flows into its sender and the flows out of its
  // receiver are of one kind (near or far, one weight), since with cross-traffic each NIC also carries 5 % of those.
  // (Flows inside the simulated leaf stay real and need no such check.)
  const auto far_flow = [&](int a, int b) { return leaf_of(a) != leaf_of(b); };
  for (int r = 0; r < p; ++r) {
    const int t = target(r);
    if (t >= p && far_flow(source(r), r) != far_flow(t, target(t)))
      return std::nullopt;
  }
  // No GPU port may limit an inter-node flow (it wants at most the NIC's rate shared by the node's flows).
  const double cross  = simgrid::config::get_value<bool>("network/crosstraffic") ? 0.05 : 0.0;
  const double w_inter = std::max(route_weight(platform.gpu(0), platform.gpu(g)).penalty,
                                  route_weight(platform.gpu(0), platform.gpu(p * g)).penalty);
  const double w_intra = g > 1 ? route_weight(platform.gpu(0), platform.gpu(1)).penalty : 0;
  const double uplink  = platform.node_links.front()->get_bandwidth();
  for (int r = 0; r < p; ++r) {
    const auto& o = out[static_cast<std::size_t>(r)];
    const auto& i = in[static_cast<std::size_t>(r)];
    const double demand = uplink / static_cast<double>(std::min(o.size(), i.size()));
    for (int j = 0; j < g; ++j)
      for (const bool up : {true, false}) {
        const auto has = [j](const std::vector<Inter>& v, bool src) {
          return std::any_of(v.begin(), v.end(), [&](const Inter& f) { return (src ? f.ls : f.ld) == j; }) ? 1.0 : 0.0;
        };
        const double fwd = up ? has(o, true) : has(i, false), rev = up ? has(i, false) : has(o, true);
        if (fwd == 0)
          continue;
        double intra_terms = 0;
        for (const auto& [ls, ld, bytes] : intra[static_cast<std::size_t>(r)])
          intra_terms += ((up ? ls : ld) == j ? 1 : 0) + cross * ((up ? ld : ls) == j ? 1 : 0);
        intra_terms = w_intra > 0 ? intra_terms / w_intra : 0;
        // A port that carries its inter-node flow and nothing else may limit it: the half keeps the far end's port as
        // a never-shared copy (the fabric port's route), and the far end's port is alone too (every node alike), so
        // the real flow and its halves meet the same port rate at both ends (a flat ring's last GPU of each node).
        if (intra_terms == 0 && fwd + cross * rev == 1)
          continue;
        if (port_can_limit(topo.intra_bytes_per_s, intra_terms, {{fwd + cross * rev, demand, w_inter}}))
          return std::nullopt;
      }
  }
  std::vector<Flow> reduced;
  for (int r = 0; r < p; ++r) {
    const int base = r * g;
    for (const auto& [ls, ld, bytes] : intra[static_cast<std::size_t>(r)])
      reduced.push_back({base + ls, base + ld, bytes});
    const int t = target(r);
    for (const auto& f : out[static_cast<std::size_t>(r)])
      reduced.push_back({base + f.ls, t < p ? t * g + f.ld : kFabricPort, size});
    if (source(r) >= p)
      for (const auto& f : in[static_cast<std::size_t>(r)])
        reduced.push_back({kFabricPort, base + f.ld, size});
  }
  return reduced;
}

} // namespace

bool symmetric_rounds_enabled()
{
  const char* env = std::getenv("CCSIM_SYMMETRY");
  return env == nullptr || std::string(env) != "off";
}

std::optional<std::vector<Flow>> reduce_symmetric_round(const Round& round, const Platform& platform,
                                                        const Topology& topo)
{
  const int g = platform.gpus_per_node;
  const int gpus = platform.gpu_count();
  if (platform.fabric_port == nullptr || !platform.identical_nodes || topo.per_flow_bytes_per_s || gpus % g != 0)
    return std::nullopt;
  for (const auto& [id, node] : topo.nodes)
    if (node.nic_bytes_per_s)
      return std::nullopt; // a node with its own NIC rate breaks the symmetry between nodes
  const int m = gpus / g;
  if (m < 2)
    return std::nullopt;

  // A cheap first test: an all-to-all between nodes has a multiple of m(m-1) inter-node flows (a ring has m).
  std::size_t inter_count = 0;
  for (const auto& f : round.flows)
    inter_count += f.src / g != f.dst / g ? 1 : 0;
  if (inter_count % static_cast<std::size_t>(m) == 0 && inter_count / static_cast<std::size_t>(m) <= static_cast<std::size_t>(g))
    if (auto ring = reduce_ring_round(round, platform, topo, g, m))
      return ring;
  if (inter_count == 0 || inter_count % (static_cast<std::size_t>(m) * (m - 1)) != 0)
    return std::nullopt;

  // Split the round: each node's intra-node flows, and the inter-node flows keyed by their node pair.
  std::vector<std::vector<Local>> intra(static_cast<std::size_t>(m));
  std::vector<std::tuple<int, int, int, int, std::uint64_t>> inter; // (src node, dst node, local src, local dst, bytes)
  for (const auto& f : round.flows) {
    const int a = f.src / g, b = f.dst / g;
    if (a == b)
      intra[static_cast<std::size_t>(a)].emplace_back(f.src - a * g, f.dst - a * g, f.bytes);
    else
      inter.emplace_back(a, b, f.src - a * g, f.dst - b * g, f.bytes);
  }
  for (auto& flows : intra)
    std::sort(flows.begin(), flows.end());
  for (const auto& flows : intra)
    if (flows != intra.front())
      return std::nullopt;

  // Every ordered pair of distinct nodes must carry the same flows (local source, local destination, bytes).
  std::sort(inter.begin(), inter.end());
  const std::size_t per_pair = inter.size() / (static_cast<std::size_t>(m) * (m - 1));
  std::vector<Local> pattern;
  for (std::size_t i = 0; i < per_pair; ++i) {
    const auto& [a, b, ls, ld, bytes] = inter[i];
    pattern.emplace_back(ls, ld, bytes);
  }
  for (std::size_t i = 0; i < inter.size(); ++i) {
    const std::size_t pair = i / per_pair;
    const int a = static_cast<int>(pair / (m - 1));
    const int k = static_cast<int>(pair % (m - 1));
    const int b = k < a ? k : k + 1; // pairs in sorted order: (a, 0..m-1 without a)
    const auto& [fa, fb, ls, ld, bytes] = inter[i];
    if (fa != a || fb != b || pattern[i % per_pair] != Local{ls, ld, bytes})
      return std::nullopt;
  }

  // One size, and the same number of flows out of (into) every GPU that sends (receives): each half flow then stands
  // for the same number of real flows, so the NICs share among the halves as among the real flows.
  const std::uint64_t size = std::get<2>(pattern.front());
  std::vector<int> out_count(static_cast<std::size_t>(g), 0), in_count(static_cast<std::size_t>(g), 0);
  for (const auto& [ls, ld, bytes] : pattern) {
    if (bytes != size)
      return std::nullopt;
    ++out_count[static_cast<std::size_t>(ls)];
    ++in_count[static_cast<std::size_t>(ld)];
  }
  auto uniform = [](const std::vector<int>& counts, int* gpus_used) {
    int per_gpu = 0;
    *gpus_used  = 0;
    for (const int n : counts) {
      if (n == 0)
        continue;
      if (per_gpu != 0 && n != per_gpu)
        return false;
      per_gpu = n;
      ++*gpus_used;
    }
    return true;
  };
  int senders = 0, receivers = 0;
  if (!uniform(out_count, &senders) || !uniform(in_count, &receivers))
    return std::nullopt;
  // With cross-traffic each flow also loads its reverse route at 5 %: the halves into a node must then carry what
  // the halves out of it carry, as the real flows do, so as many GPUs receive as send.
  const double cross = simgrid::config::get_value<bool>("network/crosstraffic") ? 0.05 : 0.0;
  if (cross > 0 && senders != receivers)
    return std::nullopt;

  // Which inter-node flows stay real and which become halves. A star: every other node is far (reached through the
  // fabric port). A fat-tree: the k - 1 other nodes of a leaf are near, and their flows stay real; the m - k nodes of
  // other leaves are far. Simulated: one node where no fabric link joins the nodes, one leaf on a fat-tree, every
  // node under an oversubscribed core.
  const bool tree = topo.fabric == FabricKind::FAT_TREE;
  const int k     = tree ? topo.nodes_per_leaf : 1;
  if (tree && (m % k != 0 || m == k || !topo.leaf_uplink_share.empty()))
    return std::nullopt;
  const int far       = m - k;
  const int simulated = tree ? k : (platform.fabric_links.empty() ? 1 : m);
  const auto E        = static_cast<double>(pattern.size()); // real flows per node pair
  const RouteWeight w_far  = route_weight(platform.gpu(0), platform.gpu(k * g));
  const RouteWeight w_near = tree ? route_weight(platform.gpu(0), platform.gpu(g)) : RouteWeight{};
  const RouteWeight w_intra = g > 1 ? route_weight(platform.gpu(0), platform.gpu(1)) : RouteWeight{};
  const double uplink = platform.node_links.front()->get_bandwidth();
  // The most a far flow can carry (the share of the link that limits it), real and half; a near flow's NIC share.
  const double far_limit  = tree ? platform.fabric_links.front()->get_bandwidth() / k : uplink;
  const double real_far   = far_limit / (E * far);
  const double half_far   = far_limit / std::min(senders, receivers);
  const double real_near  = tree ? uplink / (E * (k - 1)) : 0;
  // How many parallel halves carry a GPU's far flows. A star: one (every far flow meets only far flows on a NIC). A
  // fat-tree: the far flows must be held by their leaf's uplink, not by the NIC they share with the near flows; the near
  // flows then take what the NIC has left, in the real round and the reduced one alike. Progressive filling raises each
  // flow to level / weight, so the uplink must fill at a lower level than the NIC: with n = the near flows' NIC terms
  // and a = (1 + cross) / weight of a far flow, C / (k S h a) <= B / (n + S h a) for h halves per sending GPU, i.e.
  // h >= C n / (S a (B k - C)), which only an oversubscribed uplink (C < B k) allows. (SimGrid cannot weight one flow
  // as several, so the weight comes from their number.)
  const double leaf_up = tree ? platform.fabric_links.front()->get_bandwidth() : 0;
  const double a_far   = (1 + cross) / w_far.penalty;
  const double near_nic = tree ? E * (k - 1) * (1 + cross) / w_near.penalty : 0;
  int h = 1;
  if (tree) {
    if (leaf_up >= uplink * k)
      return std::nullopt;
    const double needed = leaf_up * near_nic / (senders * a_far * (uplink * k - leaf_up));
    if (needed * senders > E * far)
      return std::nullopt; // as many halves as real far flows: nothing to gain
    h = std::max(1, static_cast<int>(std::ceil(needed * (1 + 1e-6))));
    const double real_leaf = leaf_up / (k * E * far * a_far), real_nic = uplink / (near_nic + E * far * a_far);
    const double half_leaf = leaf_up / (k * senders * h * a_far), half_nic = uplink / (near_nic + senders * h * a_far);
    if (real_leaf > real_nic || half_leaf > half_nic)
      return std::nullopt;
  }
  const double half_far_h = half_far / h;
  if (w_far.window_bound < half_far_h)
    return std::nullopt;

  // No GPU port may limit an inter-node flow, in the real round or the reduced one.
  std::vector<int> intra_out(static_cast<std::size_t>(g), 0), intra_in(static_cast<std::size_t>(g), 0);
  for (const auto& [ls, ld, bytes] : intra.front()) {
    ++intra_out[static_cast<std::size_t>(ls)];
    ++intra_in[static_cast<std::size_t>(ld)];
  }
  const double port = topo.intra_bytes_per_s;
  for (std::size_t j = 0; j < static_cast<std::size_t>(g); ++j) {
    for (const bool up : {true, false}) { // a port's direction out of the GPU, then into it
      const int fwd = up ? out_count[j] : in_count[j], rev = up ? in_count[j] : out_count[j];
      const int fwd_intra = up ? intra_out[j] : intra_in[j], rev_intra = up ? intra_in[j] : intra_out[j];
      if (fwd == 0)
        continue;
      const double intra_terms = w_intra.penalty > 0 ? (fwd_intra + cross * rev_intra) / w_intra.penalty : 0;
      const double each        = fwd + cross * rev; // real flows per far (near) node
      std::vector<PortClass> real{{each * far, real_far, w_far.penalty}};
      std::vector<PortClass> half{{h * (1 + (rev > 0 ? cross : 0.0)), half_far_h, w_far.penalty}};
      if (tree) {
        real.push_back({each * (k - 1), real_near, w_near.penalty});
        half.push_back({each * (k - 1), real_near, w_near.penalty});
      }
      if (port_can_limit(port, intra_terms, real) || port_can_limit(port, intra_terms, half))
        return std::nullopt;
    }
  }
  std::vector<Flow> reduced;
  for (int a = 0; a < simulated; ++a) {
    const int base = a * g;
    for (const auto& [ls, ld, bytes] : intra.front())
      reduced.push_back({base + ls, base + ld, bytes});
    for (int b = 0; b < simulated; ++b) // near flows (a fat-tree's leaf): real
      if (tree && b != a)
        for (const auto& [ls, ld, bytes] : pattern)
          reduced.push_back({base + ls, b * g + ld, bytes});
    for (int j = 0; j < g; ++j) {
      const auto local = static_cast<std::size_t>(j);
      const std::uint64_t flows_out = static_cast<std::uint64_t>(out_count[local]) * far;
      const std::uint64_t flows_in  = static_cast<std::uint64_t>(in_count[local]) * far;
      for (int copy = 0; copy < h; ++copy) { // h halves of equal bytes: the first ones take the remainder
        const auto share = [&](std::uint64_t total) { return total / h + (copy < static_cast<int>(total % h) ? 1 : 0); };
        if (flows_out > 0)
          reduced.push_back({base + j, kFabricPort, share(size * flows_out)});
        if (flows_in > 0)
          reduced.push_back({kFabricPort, base + j, share(size * flows_in)});
      }
    }
  }
  return reduced;
}

} // namespace ccsim::sim
