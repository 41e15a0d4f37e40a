// Rounds of flows. A round's time is that of its slowest flow under sharing, so wherever the cluster's symmetry makes
// flows interchangeable (identical nodes, identical node pairs) only a representative set is simulated; every flow is
// still counted.
#include "sim/step/FlowRounds.hpp"

#include "sim/layout/PipelineGroups.hpp"
#include "sim/step/StepAccounting.hpp"
#include "sim/collective/SymmetricRound.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <tuple>

namespace sg4 = simgrid::s4u;

namespace ccsim::sim {

namespace {
sg4::CommPtr start_flow(StepContext& c, int src, int dst, std::uint64_t bytes)
{
  count_messages(c, src, dst, bytes, 1);
  return sg4::Comm::sendto_async(c.platform.gpu(src), c.platform.gpu(dst), bytes);
}

/// Starts `flows` from the calling actor and waits for all of them.
void send_and_wait(StepContext& c, const std::vector<Flow>& flows)
{
  std::vector<sg4::CommPtr> comms;
  comms.reserve(flows.size());
  for (const auto& f : flows)
    comms.push_back(start_flow(c, f.src, f.dst, f.bytes));
  sg4::Comm::wait_all(comms);
}

/// When every flow of `round` stays inside its node and every node holds the same flows (same local source,
/// destination and size), returns the first node's flows; otherwise nothing. Intra-node routes cross only their own
/// node's ports, so the nodes do not interact and each finishes when the first does: simulating one node gives the
/// round's time exactly (a ring step of 16,384 GPUs: 8 flows instead of 16,384).
std::optional<std::vector<Flow>> one_node_of_identical(const StepContext& c, const Round& round)
{
  const int gpn = c.platform.gpus_per_node;
  if (!c.platform.identical_nodes || gpn < 2 || round.flows.size() <= static_cast<std::size_t>(gpn))
    return std::nullopt;
  std::map<int, std::vector<std::tuple<int, int, std::uint64_t>>> by_node; // node -> (local src, local dst, bytes)
  for (const auto& f : round.flows) {
    const int node = c.platform.node_of(f.src);
    if (node != c.platform.node_of(f.dst))
      return std::nullopt;
    by_node[node].emplace_back(f.src - node * gpn, f.dst - node * gpn, f.bytes);
  }
  for (auto& [node, flows] : by_node)
    std::sort(flows.begin(), flows.end());
  const auto& first = by_node.begin()->second;
  for (const auto& [node, flows] : by_node)
    if (flows != first)
      return std::nullopt;
  const int base = by_node.begin()->first * gpn;
  std::vector<Flow> one;
  for (const auto& [src, dst, bytes] : first)
    one.push_back({base + src, base + dst, bytes});
  return one;
}

/// When the flows of `round` fall into groups on domains of their own (sim/layout/PipelineGroups.hpp: a node behind its own
/// uplink on a switch that cannot limit, a leaf of a fat-tree), two groups never sharing a domain, and every group is a
/// copy of the first (the same flows in the same order between the same places: the domain's and the node's place in
/// the group in order of first visit, the local GPU, the bytes), marks the first group's flows; otherwise nothing.
/// No link is shared between groups, so each runs exactly as it would alone and the first gives the round's time. A
/// 1,024-GPU step at tp 8 x pp 4 runs its data-parallel all-to-alls on four disjoint sets of 32 nodes: one is simulated.
std::optional<std::vector<char>> one_group_of_identical(const StepContext& c, const Round& round)
{
  const int gpn          = c.platform.gpus_per_node;
  const int domain_nodes = pipeline_domain_nodes(*c.topo);
  if (!c.platform.identical_nodes || domain_nodes < 1 || gpn < 1 || round.flows.size() < 2)
    return std::nullopt;
  // Dense tables indexed by domain and node (a round of a 16,384-GPU step has 16,384 flows: maps cost more than the
  // SimGrid run of the one group they leave, perf).
  const auto nodes = static_cast<std::size_t>((c.platform.gpu_count() + gpn - 1) / gpn);
  const std::size_t domains = nodes / static_cast<std::size_t>(domain_nodes) + 1;
  auto domain = [&](int rank) { return static_cast<std::size_t>(rank / gpn / domain_nodes); };
  // Domains joined by a flow, by union-find.
  std::vector<std::size_t> parent(domains, domains); // `domains`: not seen
  auto find = [&](std::size_t d) {
    while (parent[d] != d)
      d = parent[d] = parent[parent[d]];
    return d;
  };
  for (const auto& f : round.flows) {
    const std::size_t a = domain(f.src), b = domain(f.dst);
    if (parent[a] == domains)
      parent[a] = a;
    if (parent[b] == domains)
      parent[b] = b;
    parent[find(a)] = find(b);
  }
  std::vector<std::size_t> group_of(domains, domains); // root domain -> index in `groups`
  std::vector<std::vector<const Flow*>> groups;        // each group's flows, in round order
  for (const auto& f : round.flows) {
    auto& g = group_of[find(domain(f.src))];
    if (g == domains) {
      g = groups.size();
      groups.emplace_back();
    }
    groups[g].push_back(&f);
  }
  if (groups.size() < 2)
    return std::nullopt;
  // A group's shape: each flow's ends as (the domain's and the node's place in the group in order of first visit,
  // the local GPU), and its bytes.
  /// Numbers keys in order of first visit; forget() clears what a group numbered, for the next group.
  struct FirstVisit {
    std::vector<int> place;
    std::vector<std::size_t> seen;
    int operator()(std::size_t key)
    {
      if (place[key] < 0) {
        place[key] = static_cast<int>(seen.size());
        seen.push_back(key);
      }
      return place[key];
    }
    void forget()
    {
      for (const std::size_t key : seen)
        place[key] = -1;
      seen.clear();
    }
  };
  FirstVisit domain_place{std::vector<int>(domains, -1), {}}, node_place{std::vector<int>(nodes, -1), {}};
  auto shape = [&](const std::vector<const Flow*>& flows) {
    std::vector<std::tuple<int, int, int, int, int, int, std::uint64_t>> out;
    out.reserve(flows.size());
    auto place = [&](int rank) {
      return std::pair{domain_place(domain(rank)), node_place(static_cast<std::size_t>(rank / gpn))};
    };
    for (const Flow* f : flows) {
      const auto [ds, ns] = place(f->src);
      const auto [dd, nd] = place(f->dst);
      out.emplace_back(ds, ns, f->src % gpn, dd, nd, f->dst % gpn, f->bytes);
    }
    domain_place.forget();
    node_place.forget();
    return out;
  };
  // The group of the first flow is simulated (the one chain 0's ranks are in, as with pipelines): the first flow
  // opened groups[0].
  const auto& first = groups.front();
  const auto want   = shape(first);
  for (const auto& flows : groups)
    if (&flows != &first && (flows.size() != first.size() || shape(flows) != want))
      return std::nullopt;
  std::vector<char> mine(round.flows.size(), 0);
  for (const Flow* f : first)
    mine[static_cast<std::size_t>(f - round.flows.data())] = 1;
  return mine;
}

/// The host of a flow endpoint: a GPU by rank, or the fabric port (sim/collective/SymmetricRound.hpp).
sg4::Host* endpoint(const StepContext& c, int id)
{
  return id == kFabricPort ? c.platform.fabric_port : c.platform.gpu(id);
}
} // namespace

namespace {
/// Sends `flows` at once and waits for them all: directly, or through actors where a round is large.
// Why large rounds take another path: SimGrid 3.32 detaches every host-to-host comm (Comm::sendto_init), which parks
// it on the maestro's std::list of activities, and removes it from there by value when it finishes
// (CommImpl::finish: maestro->activities_.remove(this)). Each completion thus scans every comm still in flight, so a
// round of K flows costs O(K^2): a 1,024-GPU all-to-all's 10^5 node-pair flows spent over 90 % of the run in that
// scan (perf, issue 19). Mailbox comms are not detached: they sit in the lists of their own sender and receiver
// actors only. So a large round is carried by one short-lived actor per sending GPU and one per receiving GPU, each
// holding only its own flows. The network sees the same flows, between the same hosts, started at the same instant.
void run_flows(StepContext& c, const std::vector<Flow>& flows)
{
  // The actors' own cost is their stacks (SimGrid touches each one whole), so they pay off only where a GPU sends
  // many flows (an all-to-all). A round of one flow per GPU (a ring step, even of 16,384 GPUs: ~0.3 s of scan)
  // stays on the direct path: two actors per flow would cost more than the scan they save.
  constexpr std::size_t DIRECT_FLOWS    = 1024; // up to here the quadratic scan costs less than creating actors
  constexpr std::size_t FLOWS_PER_ACTOR = 4;    // below this many flows per sending GPU, actors cost more
  if (flows.size() <= DIRECT_FLOWS) { // most rounds: no need to count the senders
    send_and_wait(c, flows);
    return;
  }
  std::vector<char> sends(static_cast<std::size_t>(c.platform.gpu_count()), 0);
  std::size_t senders = 0;
  for (const auto& f : flows)
    if (auto& s = sends[static_cast<std::size_t>(f.src)]; !s) {
      s = 1;
      ++senders;
    }
  if (flows.size() < FLOWS_PER_ACTOR * senders) {
    send_and_wait(c, flows);
    return;
  }
  // An actor's own list is scanned whole on every removal too (std::list::remove), so a GPU with many flows gets
  // several sending (or receiving) actors of PER_ACTOR comms each; PER_ACTOR grows with the round so that a GPU never
  // needs more than ~8 actors per side (a 1,024-GPU exact all-to-all: 1,023 flows per GPU, 128 per actor).
  const std::size_t PER_ACTOR = std::max<std::size_t>(16, flows.size() / 8192);
  static int token = 0;
  std::map<int, std::size_t> incoming;          // receiving GPU -> flows it receives
  std::map<int, std::vector<const Flow*>> sent; // sending GPU -> its flows
  for (const auto& f : flows) {
    ++incoming[f.dst];
    sent[f.src].push_back(&f);
  }
  auto inbox = [](int rank) { return sg4::Mailbox::by_name("round-in" + std::to_string(rank)); };
  std::vector<sg4::ActorPtr> actors;
  actors.reserve(2 * flows.size() / PER_ACTOR + incoming.size() + sent.size());
  for (const auto& [dst, count] : incoming)
    for (std::size_t first = 0; first < count; first += PER_ACTOR)
      actors.push_back(sg4::Actor::create("round-recv", c.platform.gpu(dst),
                                          [mbox = inbox(dst), n = std::min(PER_ACTOR, count - first)] {
                                            std::vector<int*> got(n, nullptr);
                                            std::vector<sg4::CommPtr> comms;
                                            comms.reserve(n);
                                            for (auto& g : got)
                                              comms.push_back(mbox->get_async<int>(&g));
                                            sg4::Comm::wait_all(comms);
                                          }));
  for (const auto& [src, flows] : sent)
    for (std::size_t first = 0; first < flows.size(); first += PER_ACTOR) {
      std::vector<const Flow*> mine(flows.begin() + static_cast<long>(first),
                                    flows.begin() + static_cast<long>(std::min(flows.size(), first + PER_ACTOR)));
      actors.push_back(sg4::Actor::create("round-send", c.platform.gpu(src), [&c, &inbox, mine = std::move(mine)] {
        std::vector<sg4::CommPtr> comms;
        comms.reserve(mine.size());
        for (const Flow* f : mine) {
          count_messages(c, f->src, f->dst, f->bytes, 1);
          comms.push_back(inbox(f->dst)->put_async(&token, f->bytes));
        }
        sg4::Comm::wait_all(comms);
      }));
    }
  for (auto& a : actors)
    a->join();
}

} // namespace

void run_round(StepContext& c, const Round& round)
{
  if (c.platform.out_of_slots)
    return; // the step runs again on every node (Platform::slots): the sooner this attempt ends, the better
  if (const auto one = one_node_of_identical(c, round)) {
    for (const auto& f : round.flows) // every flow is still counted (bytes, events), only the first node's run
      if (c.platform.node_of(f.src) != c.platform.node_of(one->front().src))
        count_messages(c, f.src, f.dst, f.bytes, 1);
    send_and_wait(c, *one);
    return;
  }
  if (const auto reduced = c.reduce_symmetric ? reduce_symmetric_round(round, c.platform, *c.topo) : std::nullopt) {
    for (const auto& f : round.flows) // every real flow is counted (bytes, events, links); the reduced set is timed
      count_messages(c, f.src, f.dst, f.bytes, 1);
    std::vector<sg4::CommPtr> comms;
    comms.reserve(reduced->size());
    for (const auto& f : *reduced)
      comms.push_back(sg4::Comm::sendto_async(endpoint(c, f.src), endpoint(c, f.dst), f.bytes));
    sg4::Comm::wait_all(comms);
    return;
  }
  if (const auto mine = c.reduce_symmetric ? one_group_of_identical(c, round) : std::nullopt) {
    std::vector<Flow> one; // every flow is counted; the first group's alone are sent
    for (std::size_t k = 0; k < round.flows.size(); ++k) {
      const auto& f = round.flows[k];
      if ((*mine)[k])
        one.push_back(f);
      else
        count_messages(c, f.src, f.dst, f.bytes, 1);
    }
    run_flows(c, one);
    return;
  }
  run_flows(c, round.flows);
}

} // namespace ccsim::sim
