// Ring, hierarchical and all-to-all schedules. Closed forms on an alpha-beta network (nccl-tests
// doc/PERFORMANCE.md): ring all-reduce t = 2(n-1)(a + S/(n B)); reduce-scatter / all-gather (n-1)(a + S/(n B)).
#include "sim/collective/Collectives.hpp"

#include "sim/nccl/NcclFlows.hpp"
#include "sim/nccl/NcclModel.hpp"
#include "sim/platform/Topology.hpp"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace ccsim::sim {

namespace {
std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b)
{
  return (a + b - 1) / b;
}

/// Appends `rounds` ring rounds (i -> i+1, `chunk` bytes) of one ring to `out` starting at `first`;
/// in FAST mode the rounds collapse into one bulk round.
void add_ring(std::vector<Round>& out, std::size_t first, const Group& ring, int rounds, std::uint64_t chunk,
              Fidelity fidelity)
{
  const std::size_t n = ring.size();
  if (n < 2 || rounds == 0 || chunk == 0)
    return;
  const std::size_t needed = first + (fidelity == Fidelity::EXACT ? rounds : 1);
  if (out.size() < needed)
    out.resize(needed);
  if (fidelity == Fidelity::EXACT) {
    for (int r = 0; r < rounds; ++r)
      for (std::size_t i = 0; i < n; ++i)
        out[first + r].flows.push_back({ring[i], ring[(i + 1) % n], chunk});
  } else {
    for (std::size_t i = 0; i < n; ++i)
      out[first].flows.push_back({ring[i], ring[(i + 1) % n], chunk * rounds});
    out[first].extra_latency_terms = std::max(out[first].extra_latency_terms, rounds - 1);
  }
}

std::size_t stage_length(int rounds, Fidelity fidelity)
{
  return rounds == 0 ? 0 : (fidelity == Fidelity::EXACT ? static_cast<std::size_t>(rounds) : 1);
}

/// Splits a group into its members per node (in group order), keyed by node index.
std::map<int, Group> by_node(const Group& g, int gpus_per_node)
{
  std::map<int, Group> out;
  for (int r : g)
    out[r / gpus_per_node].push_back(r);
  return out;
}

void schedule_hierarchical_allreduce(std::vector<Round>& out, const Group& g, std::uint64_t bytes, Fidelity fidelity,
                                     int gpus_per_node)
{
  // NCCL-like: intra-node reduce-scatter (g-1 rounds of S/g), inter-node ring all-reduce of each S/g shard among
  // same-local-index ranks (2(m-1) rounds of S/(g m)), intra-node all-gather (g-1 rounds of S/g).
  const auto nodes = by_node(g, gpus_per_node);
  const int m      = static_cast<int>(nodes.size());
  const int local  = static_cast<int>(nodes.begin()->second.size());
  const std::uint64_t shard = ceil_div(bytes, local);
  const int intra_rounds    = local - 1;
  const int inter_rounds    = 2 * (m - 1);
  const std::size_t s1      = 0;
  const std::size_t s2      = s1 + stage_length(intra_rounds, fidelity);
  const std::size_t s3      = s2 + stage_length(inter_rounds, fidelity);
  for (const auto& [_, members] : nodes)
    add_ring(out, s1, members, intra_rounds, ceil_div(bytes, local), fidelity);
  for (int j = 0; j < local; ++j) {
    Group ring;
    for (const auto& [_, members] : nodes)
      if (j < static_cast<int>(members.size()))
        ring.push_back(members[j]);
    add_ring(out, s2, ring, inter_rounds, ceil_div(shard, m), fidelity);
  }
  for (const auto& [_, members] : nodes)
    add_ring(out, s3, members, intra_rounds, ceil_div(bytes, local), fidelity);
}

void schedule_all_to_all(std::vector<Round>& out, const Group& g, std::uint64_t bytes, Fidelity fidelity,
                         int gpus_per_node)
{
  // Every rank sends S/n to every other rank at once (NCCL issues all sends together: one latency term).
  const std::size_t n = g.size();
  if (n < 2)
    return;
  const std::uint64_t piece = ceil_div(bytes, n);
  if (out.empty())
    out.resize(1);
  auto& flows = out[0].flows;
  if (fidelity == Fidelity::EXACT) {
    for (int src : g)
      for (int dst : g)
        if (src != dst)
          flows.push_back({src, dst, piece});
    return;
  }
  // FAST: inside a node every pair is its own flow (few); between two nodes one flow carries all
  // |A|·|B| pieces, from the first member on A to the first on B, so the NICs see the same bytes.
  const auto nodes = by_node(g, gpus_per_node);
  for (const auto& [a, on_a] : nodes) {
    for (const auto& [b, on_b] : nodes) {
      if (a == b) {
        for (int src : on_a)
          for (int dst : on_b)
            if (src != dst)
              flows.push_back({src, dst, piece});
      } else {
        flows.push_back({on_a.front(), on_b.front(), piece * on_a.size() * on_b.size()});
      }
    }
  }
}
} // namespace

namespace {
/// merge_node_pairs, fed a round's flows in pieces: the flows already merged stay first, in order, and each call folds
/// the flows appended since the last one into them, in place. The result is the batch merge's: the same flows, in the
/// same order (first appearance), with the same integer byte sums. Why pieces: a 16,384-GPU SDP4Bit step schedules one
/// all-to-all per GPU position, 8 x 4.2 million node-pair flows before merging (540 MB and most of its run time);
/// folding each group's flows in as it is scheduled keeps at most one group's flows unmerged.
class NodePairMerger {
public:
  explicit NodePairMerger(int gpus_per_node) : gpn_(gpus_per_node) {}

  void fold(Round& round)
  {
    auto& flows = round.flows;
    if (merged_ == flows.size())
      return;
    int top = 0; // the highest rank in the new flows
    for (std::size_t i = merged_; i < flows.size(); ++i)
      top = std::max({top, flows[i].src, flows[i].dst});
    // rank -> node from a table: two integer divisions per flow were a third of the merge's time at 33 million flows
    for (int r = static_cast<int>(node_of_.size()); r <= top; ++r)
      node_of_.push_back(r / gpn_);
    if (merged_ == 0) { // first piece: size the (src node, dst node) table from the nodes it sees
      nodes_           = top / gpn_ + 1;
      const auto pairs = static_cast<std::size_t>(nodes_) * static_cast<std::size_t>(nodes_);
      if (pairs <= FLAT_LIMIT)
        flat_.assign(pairs, UINT32_MAX);
    }
    std::size_t out = merged_;
    for (std::size_t i = merged_; i < flows.size(); ++i) {
      const Flow f = flows[i];
      const int a = node_of_[static_cast<std::size_t>(f.src)], b = node_of_[static_cast<std::size_t>(f.dst)];
      if (a == b) {
        flows[out++] = f;
        continue;
      }
      std::size_t at = out;
      if (a < nodes_ && b < nodes_ && !flat_.empty()) {
        auto& slot = flat_[static_cast<std::size_t>(a) * static_cast<std::size_t>(nodes_) + static_cast<std::size_t>(b)];
        if (slot == UINT32_MAX)
          slot = static_cast<std::uint32_t>(at);
        else
          at = slot;
      } else {
        at = index_.emplace(std::make_pair(a, b), at).first->second;
      }
      if (at == out)
        flows[out++] = f;
      else
        flows[at].bytes += f.bytes;
    }
    flows.resize(out);
    merged_ = out;
  }

private:
  // (src node, dst node) -> position in the merged flows: a flat table where it fits in 64 MiB (a 2,048-node
  // all-to-all's 4.2 million pairs; a std::map of them took 13 % of a 16,384-GPU step), a map beyond (and for a
  // node a later piece reaches beyond the table).
  static constexpr std::size_t FLAT_LIMIT = std::size_t{1} << 24;
  int gpn_;
  int nodes_           = 0;
  std::size_t merged_  = 0;
  std::vector<int> node_of_; // rank -> node
  std::vector<std::uint32_t> flat_;
  std::map<std::pair<int, int>, std::size_t> index_;
};
} // namespace

void merge_node_pairs(std::vector<Round>& rounds, int gpus_per_node)
{
  for (auto& round : rounds)
    NodePairMerger(gpus_per_node).fold(round);
}

int ring_rounds(Collective collective, int n)
{
  switch (collective) {
  case Collective::ALL_REDUCE:
    return 2 * (n - 1);
  case Collective::REDUCE_SCATTER:
  case Collective::ALL_GATHER:
    return n - 1;
  case Collective::ALL_TO_ALL:
  case Collective::SEND_RECV:
    return 1;
  }
  return 0;
}

Algo resolve_algo(Collective collective, Algo algo, const Group& group, int gpus_per_node)
{
  if (collective == Collective::ALL_TO_ALL || collective == Collective::SEND_RECV)
    return Algo::DIRECT;
  if (algo != Algo::AUTO)
    return algo;
  if (collective != Collective::ALL_REDUCE)
    return Algo::RING;
  const auto nodes = by_node(group, gpus_per_node);
  const bool uniform = std::all_of(nodes.begin(), nodes.end(),
                                   [&](const auto& kv) { return kv.second.size() == nodes.begin()->second.size(); });
  if (nodes.size() > 1 && nodes.begin()->second.size() > 1 && uniform)
    return Algo::HIERARCHICAL;
  return Algo::RING;
}

namespace {
/// Schedules every group with `add_group(out, group)`, merging node pairs group by group when `merge` asks (FAST).
template <class AddGroup>
std::vector<Round> schedule_groups(const std::vector<Group>& groups, Fidelity fidelity, int gpus_per_node, bool merge,
                                   AddGroup add_group)
{
  std::vector<Round> out;
  std::vector<NodePairMerger> mergers; // one per round, fed after every group (merge_node_pairs in pieces)
  auto fold = [&] {
    if (!merge || fidelity != Fidelity::FAST)
      return;
    while (mergers.size() < out.size())
      mergers.emplace_back(gpus_per_node);
    for (std::size_t r = 0; r < out.size(); ++r)
      mergers[r].fold(out[r]);
  };
  for (const auto& g : groups) {
    fold();
    if (g.size() >= 2)
      add_group(out, g);
  }
  fold();
  return out;
}
} // namespace

std::vector<Round> schedule_collective(Collective collective, Algo algo, const std::vector<Group>& groups,
                                       std::uint64_t bytes, Fidelity fidelity, int gpus_per_node, bool merge)
{
  return schedule_groups(groups, fidelity, gpus_per_node, merge, [&](std::vector<Round>& out, const Group& g) {
    const int n = static_cast<int>(g.size());
    if (bytes == 0)
      return;
    const Algo a = resolve_algo(collective, algo, g, gpus_per_node);
    if (collective == Collective::ALL_TO_ALL) {
      schedule_all_to_all(out, g, bytes, fidelity, gpus_per_node);
    } else if (collective == Collective::SEND_RECV) { // rank r to r+1, every pair at once: one latency term
      if (out.empty())
        out.resize(1);
      for (int i = 0; i < n; ++i)
        out[0].flows.push_back({g[static_cast<std::size_t>(i)], g[static_cast<std::size_t>((i + 1) % n)], bytes});
    } else if (a == Algo::HIERARCHICAL && collective == Collective::ALL_REDUCE) {
      schedule_hierarchical_allreduce(out, g, bytes, fidelity, gpus_per_node);
    } else {
      add_ring(out, 0, g, ring_rounds(collective, n), ceil_div(bytes, n), fidelity);
    }
  });
}

std::vector<Round> schedule_collective(Collective collective, Algo algo, const std::vector<Group>& groups,
                                       std::uint64_t bytes, Fidelity fidelity, const Topology& topo, bool merge)
{
  if (!topo.nccl.present) { // ccsim's own collectives; a forced algorithm (collective --algo) is ring or hierarchical
    const Algo forced = algo == Algo::AUTO && topo.nccl.algorithms.size() == 1 ? topo.nccl.algorithms.front() : algo;
    return schedule_collective(collective, forced, groups, bytes, fidelity, topo.gpus_per_node, merge);
  }
  // No node-pair merging: NCCL's flows spread a node's traffic over its GPUs (rails), whose ports also carry the
  // intra-node flows, so one merged flow through one GPU's port would make that port the bottleneck.
  (void)merge;
  return schedule_groups(groups, fidelity, topo.gpus_per_node, false, [&](std::vector<Round>& out, const Group& g) {
    if (bytes == 0)
      return;
    const auto plan = choose_collective(topo, collective, group_shape(g, topo.gpus_per_node), bytes, algo);
    if (plan.algo == Algo::HIERARCHICAL)
      schedule_hierarchical_allreduce(out, g, bytes, fidelity, topo.gpus_per_node);
    else
      add_nccl_rounds(out, plan, collective, g, bytes, fidelity, topo);
  });
}

} // namespace ccsim::sim
