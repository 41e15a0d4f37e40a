// SimGrid platform construction, following the layout measured in docs/design/notes/simgrid.md §6: per-node StarZones
// with a gateway router, split-duplex links everywhere (a NIC is full duplex), and a root StarZone as switch.
// Nodes are grouped in leaves (fat-tree) or one pod (switch, WAN), StarZones between the nodes and the root, for
// the speed of SimGrid's own platform checks (build_platform); a pod adds no link to any route.
#include "sim/platform/Platform.hpp"

#include "io/NumberInput.hpp"

#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <xbt/config.hpp>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace ccsim::sim {

void configure_network_model(const Topology& topo)
{
  if (topo.network_model == NetworkModel::RDMA) {
    // docs/design/notes/simgrid.md §3: CM02 + no cross-traffic + no window = the alpha-beta closed forms to 6 digits.
    sg4::Engine::set_config("network/model:CM02");
    sg4::Engine::set_config("network/crosstraffic:0");
    sg4::Engine::set_config("network/TCP-gamma:1e18");
  } else {
    // LV08 keeps its TCP realism: latency x13.01 (slow start), bandwidth x0.97, 5% reverse cross-traffic,
    // and every flow capped at window / (2 x route latency).
    sg4::Engine::set_config("network/model:LV08");
    sg4::Engine::set_config("network/crosstraffic:1");
    sg4::Engine::set_config("network/TCP-gamma:" + std::to_string(topo.tcp_window_bytes));
  }
}

double latency_factor()
{
  return simgrid::config::get_value<double>("network/latency-factor");
}

namespace {

using Direction = sg4::LinkInRoute::Direction;

sg4::NetZone* build_node(const Topology& topo, sg4::NetZone* parent, int node, int gpus, Platform& p,
                         simgrid::kernel::routing::NetPoint** gateway)
{
  const std::string name = "node" + std::to_string(node);
  auto* zone             = sg4::create_star_zone(name);
  zone->set_parent(parent);
  *gateway = zone->create_router(name + "-gw");
  for (int local = 0; local < topo.gpus_per_node; ++local) {
    const int rank = node * topo.gpus_per_node + local;
    if (rank >= gpus)
      break;
    auto* host = zone->create_host("gpu" + std::to_string(rank), 1e9)->seal();
    // A node with its own intra-node rate (topology "nodes": PCIe instead of NVLink, a degraded switch): its ports.
    const auto own    = topo.nodes.find(node);
    const double rate = own != topo.nodes.end() && own->second.intra_bytes_per_s ? *own->second.intra_bytes_per_s
                                                                                 : topo.intra_bytes_per_s;
    if (rate != topo.intra_bytes_per_s)
      p.identical_nodes = false; // an intra-node round no longer takes the same time on every node
    auto* port = zone->create_split_duplex_link("port" + std::to_string(rank), rate);
    port->set_latency(topo.intra_latency_s)->seal();
    zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr, {{port, Direction::UP}}, true);
    p.built.push_back(host);
    p.gpu_ports.push_back(port);
  }
  zone->seal();
  return zone;
}
/// The fabric port (sim/collective/SymmetricRound.hpp): a host whose route copies the far half of a route between two nodes, in
/// FATPIPE links (each flow gets the whole rate, none is shared), so that a flow to it has the latency, the SimGrid
/// weight (latency + weight-S / bandwidth per link) and the bandwidth bound of an inter-node flow. `fabric` is the far
/// side's fabric link (core or leaf uplink) to copy, if any. In a zone of its own, as the fat-tree's leaf gateways are
/// (a host placed directly in the root zone would route as its member, not as a node's peer).
sg4::Host* build_fabric_port(const Topology& topo, sg4::NetZone* root, double uplink, const sg4::Link* fabric)
{
  auto* zone = sg4::create_star_zone("fabric-port");
  zone->set_parent(root);
  auto* gw   = zone->create_router("fabric-port-gw");
  auto* host = zone->create_host("fabric-port", 1e9)->seal();
  // One set of links per direction: with the same FATPIPE links carrying the halves into and out of a node, SimGrid
  // 3.32's solver let the halves into a node exceed its NIC when the node's GPUs also sent to each other (an NVLS-Tree
  // round: tests/sim/SymmetricRound_test.cpp).
  std::vector<sg4::LinkInRoute> up, down;
  auto add_mirror = [&](const std::string& name, double rate, double latency) {
    for (auto* route : {&up, &down}) {
      auto* l = root->create_link(name + (route == &up ? "-up" : "-down"), rate);
      l->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE)->set_latency(latency)->seal();
      route->emplace_back(l);
    }
  };
  add_mirror("mirror-port", topo.intra_bytes_per_s, topo.intra_latency_s);
  add_mirror("mirror-nic", uplink, topo.nic_latency_s);
  if (fabric != nullptr)
    add_mirror("mirror-fabric", fabric->get_bandwidth(), fabric->get_latency());
  zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr, up, false);
  std::reverse(down.begin(), down.end());
  zone->add_route(nullptr, host->get_netpoint(), nullptr, nullptr, down, false);
  zone->seal();
  root->add_route(zone->get_netpoint(), nullptr, gw, nullptr, {}, true);
  return host;
}
} // namespace

Platform build_platform(const Topology& topo, int gpus, int node_slots)
{
  Platform p;
  p.gpus_per_node = topo.gpus_per_node;
  const int all_nodes = (gpus + topo.gpus_per_node - 1) / topo.gpus_per_node;
  const bool slotted  = node_slots > 0 && node_slots < all_nodes;
  const bool tree     = topo.fabric == FabricKind::FAT_TREE;
  p.slot_nodes        = tree ? topo.nodes_per_leaf : 1; // a fat-tree's slot is a whole leaf: near and far nodes stay so
  if (slotted && (!topo.nodes.empty() || gpus % topo.gpus_per_node != 0 || all_nodes % p.slot_nodes != 0 ||
                  node_slots % p.slot_nodes != 0 || (tree && !topo.leaf_uplink_share.empty())))
    throw std::logic_error("build_platform: node slots on a platform where a node's place or rates matter");
  const int nodes     = slotted ? node_slots : all_nodes; // the nodes built
  const int built_gpus = slotted ? nodes * topo.gpus_per_node : gpus;
  const double uplink = topo.node_uplink_bytes_per_s();

  auto* root = sg4::create_star_zone("cluster");
  // A node's links (its GPU ports, NIC and per-flow cap) are created in its own zone or its group's, while both are
  // detached from the root (below); the fabric's in the root. Why: SimGrid 3.32 checks a new link's name against every
  // zone reachable from the root, visiting each zone's own link map (Engine::link_by_name_or_null). Links spread over
  // 2,048 attached node zones cost O(links x zones) (issue 19); all 37,000 in the root's map cost a 15-deep string
  // search each (memcmp took 6.5 % of a 16,384-GPU Llama 3 step's samples, perf); created in detached zones, the
  // check finds nothing to visit and each map stays small. Routes hold the links themselves, so they are unchanged.
  // Oversubscribed switch: all inter-node traffic also crosses a core of nodes x uplink / ratio (each way).
  // Its latency carries the fabric latency (half each way, as a split-duplex link is crossed up and down).
  sg4::Link* core = nullptr;
  if (topo.fabric != FabricKind::FAT_TREE && (topo.oversubscription > 1 || topo.fabric_latency_s > 0)) {
    core = root->create_split_duplex_link("core", all_nodes * uplink / topo.oversubscription);
    core->set_latency(topo.fabric_latency_s / 2)->seal();
    p.fabric_links.push_back(core);
  }

  auto attach = [&](sg4::NetZone* parent, int node, sg4::Link* extra) {
    simgrid::kernel::routing::NetPoint* gw = nullptr;
    auto* zone        = build_node(topo, parent, node, built_gpus, p, &gw);
    // A node with its own NIC rate (topology "nodes"): its uplink only; the fabric keeps the nominal sizing.
    const auto own    = topo.nodes.find(node);
    const double rate = own != topo.nodes.end() && own->second.nic_bytes_per_s
                            ? *own->second.nic_bytes_per_s * topo.nic_count
                            : uplink;
    auto* nic         = parent->create_split_duplex_link("nic" + std::to_string(node), rate);
    nic->set_latency(topo.nic_latency_s)->seal();
    std::vector<sg4::LinkInRoute> up{{nic, Direction::UP}};
    if (topo.per_flow_bytes_per_s) {
      // A FATPIPE link gives every flow crossing it the full rate without sharing: a per-flow cap (one TCP
      // stream's ceiling) on inter-node traffic only, since intra-node routes never leave the node zone.
      auto* cap = parent->create_link("flowcap" + std::to_string(node), *topo.per_flow_bytes_per_s);
      cap->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE)->seal();
      up.emplace_back(cap);
    }
    if (extra != nullptr)
      up.emplace_back(extra, Direction::UP);
    parent->add_route(zone->get_netpoint(), nullptr, gw, nullptr, up, true);
    p.node_links.push_back(nic);
  };

  // Groups of consecutive nodes (a fat-tree's leaves; a switch's pods) are built detached from the root and attached
  // once all are built. Why: SimGrid 3.32 checks each new host's name against every zone reachable from the root
  // (Engine::host_by_name_or_null) and seals a zone by walking and sorting every host reachable from the root
  // (NetZoneImpl::seal -> Engine::get_filtered_hosts), so 2,048 node zones built in place cost O(hosts x zones): 1.5 of
  // the 2.2 s of a 16,384-GPU Adam step on the fat-tree, 1.7 of 1.9 s on a switch (perf, issue 19). A detached group
  // is invisible to both walks; its node zones are sealed while detached (their hosts are sealed one by one as they
  // are created), and only the groups' own zones pay a walk at the root's seal. Links are created in the order of an
  // in-place build.
  auto* const root_impl = root->get_impl();
  auto detached_group = [&](const std::string& name, int first, int last, sg4::Link* extra) {
    auto* gz   = sg4::create_star_zone(name);
    auto* impl = gz->get_impl(); // a detached zone has no models until set_parent copies them: the root's, as it will
    impl->set_network_model(root_impl->get_network_model());
    impl->set_cpu_pm_model(root_impl->get_cpu_pm_model());
    impl->set_cpu_vm_model(root_impl->get_cpu_vm_model());
    impl->set_disk_model(root_impl->get_disk_model());
    impl->set_host_model(root_impl->get_host_model());
    // The group's gateway router lives in a zone of its own beside the nodes, not in the group zone itself. Why:
    // SimGrid 3.32 resolves a route from a GPU (two levels down) to a router of the group zone as if both were direct
    // members of it (find_common_ancestors stops one level short), and takes the first node's route instead of the
    // GPU's: every flow out of the group then left and entered through its first NIC and skipped the GPU ports. With
    // the router one level down too, the route is node -> group star -> switch zone, as between two nodes.
    auto* sw = sg4::create_star_zone(name + "-sw");
    sw->set_parent(gz);
    auto* gw = sw->create_router(name + "-gw");
    sw->seal();
    gz->add_route(sw->get_netpoint(), nullptr, gw, nullptr, {}, true);
    for (int node = first; node < last; ++node)
      attach(gz, node, extra);
    return std::make_pair(gz, gw);
  };

  struct Group {
    sg4::NetZone* zone;
    simgrid::kernel::routing::NetPoint* gateway;
    sg4::Link* uplink; // a fat-tree leaf's uplink; none for a pod
  };
  std::vector<Group> groups;
  if (topo.fabric == FabricKind::FAT_TREE) {
    // Two levels: leaves of nodes_per_leaf nodes; each leaf's uplink carries its nodes' traffic / ratio.
    const int leaves = (nodes + topo.nodes_per_leaf - 1) / topo.nodes_per_leaf;
    for (int leaf = 0; leaf < leaves; ++leaf) {
      const auto [lz, lgw] = detached_group("leaf" + std::to_string(leaf), leaf * topo.nodes_per_leaf,
                                            std::min(nodes, (leaf + 1) * topo.nodes_per_leaf), nullptr);
      // A degraded leaf (topology fabric.leaves) keeps only its share of the uplink capacity.
      const auto degraded = topo.leaf_uplink_share.find(leaf);
      double capacity     = topo.nodes_per_leaf * uplink / topo.oversubscription;
      if (degraded != topo.leaf_uplink_share.end())
        capacity *= degraded->second;
      auto* up = root->create_split_duplex_link("leafup" + std::to_string(leaf), capacity);
      up->set_latency(topo.fabric_latency_s / 2)->seal();
      p.fabric_links.push_back(up);
      groups.push_back({lz, lgw, up});
    }
  } else {
    // A switch (or WAN): all its nodes in one pod, joined to the root by a route with no link of its own, so every
    // route crosses the same links (port, NIC, per-flow cap, core) in the same order, with the same latency, as on a
    // flat switch: 100 simulate runs and the 16 experiments gave byte-identical results with and without pods. One
    // pod, not pods of 16: the root's seal walks every host once per group zone (NetZoneImpl::seal ->
    // get_all_hosts), 129 walks of 16,384 hosts for 2,048 nodes in pods of 16, where get_filtered_hosts took 15 % of
    // a 16,384-GPU Llama 3 step's samples (perf); a node's own seal inside the detached pod walks nothing reachable
    // from the root. Beyond kOnePodNodes nodes the pod holds sub-pods of kSubpodNodes, joined to it as it is to the
    // root and sealed while detached: SimGrid 3.32 checks each route a zone gets by searching the zone's children
    // (StarZone::check_add_route_param -> get_netzone_recursive), so 2,048 nodes in one zone cost 2,048^2 / 2 visits,
    // 8.5 % of a 16,384-GPU Llama 3 step's samples (perf); in sub-pods of 64, 2,048 x 64. Not below: a route across
    // sub-pods climbs one zone more, which a round of many flows pays on each (a 1,024-GPU 1-bit Adam all-to-all).
    constexpr int kOnePodNodes = 512, kSubpodNodes = 64;
    const bool subpods   = nodes > kOnePodNodes;
    const auto [pz, pgw] = detached_group("pod0", 0, subpods ? 0 : nodes, core);
    if (subpods)
      for (int first = 0, k = 0; first < nodes; first += kSubpodNodes, ++k) {
        const auto [sz, sgw] =
            detached_group("pod0-" + std::to_string(k), first, std::min(nodes, first + kSubpodNodes), core);
        sz->set_parent(pz);
        pz->add_route(sz->get_netpoint(), nullptr, sgw, nullptr, {}, true);
        sz->seal();
      }
    groups.push_back({pz, pgw, nullptr});
  }
  for (const auto& g : groups) {
    g.zone->set_parent(root);
    std::vector<sg4::LinkInRoute> links;
    if (g.uplink != nullptr)
      links.emplace_back(g.uplink, Direction::UP);
    root->add_route(g.zone->get_netpoint(), nullptr, g.gateway, nullptr, links, true);
  }
  // The fabric port copies the far side's fabric link: a leaf's uplink on a fat-tree, the core (if any) on a switch.
  const sg4::Link* far_fabric = groups.front().uplink != nullptr ? groups.front().uplink : core;
  p.fabric_port               = build_fabric_port(topo, root, uplink, far_fabric);
  root->seal();
  p.slots = (nodes + p.slot_nodes - 1) / p.slot_nodes;
  if (slotted) {
    p.by_rank.assign(static_cast<std::size_t>(gpus), nullptr);
    p.slot_of_unit.assign(static_cast<std::size_t>(all_nodes / p.slot_nodes), -1);
  } else {
    p.by_rank    = p.built;
    p.slots_used = p.slots;
  }
  return p;
}

sg4::Host* Platform::gpu(int rank) const
{
  auto* host = by_rank[static_cast<std::size_t>(rank)];
  if (host != nullptr)
    return host;
  const int g = gpus_per_node, node = rank / g;
  int& slot = slot_of_unit[static_cast<std::size_t>(node / slot_nodes)];
  if (slot < 0) {
    if (slots_used == slots) {
      out_of_slots = true; // the simulation goes on with a wrong host and is run again on every node
      return built[static_cast<std::size_t>(rank % g)];
    }
    slot = slots_used++;
  }
  // The node keeps its place in its slot (its place in its leaf) and the GPU its place in the node.
  host = built[static_cast<std::size_t>((slot * slot_nodes + node % slot_nodes) * g + rank % g)];
  by_rank[static_cast<std::size_t>(rank)] = host;
  return host;
}

int platform_node_slots(const Topology& topo, int gpus)
{
  const int g     = topo.gpus_per_node;
  const int nodes = (gpus + g - 1) / g;
  int slots       = kNodeSlots;
  if (const char* env = std::getenv("CCSIM_PLATFORM_NODES"); env != nullptr) {
    if (std::string(env) == "all")
      return 0;
    slots = static_cast<int>(io::parse_integer(env, io::Range{1, 1 << 20}, "CCSIM_PLATFORM_NODES"));
  }
  // An oversubscribed core joins every node's flows, so no round is reduced to a few nodes there (SymmetricRound.hpp,
  // pipeline_domain_nodes): every step would touch them all, and slots would only cost an attempt. A fat-tree's slots
  // are whole leaves (its oversubscription is each leaf's own uplink), so it needs whole, undegraded leaves.
  const bool tree = topo.fabric == FabricKind::FAT_TREE;
  if (!topo.nodes.empty() || gpus % g != 0 || slots < 1 || (!tree && topo.oversubscription > 1))
    return 0;
  if (tree) {
    const int leaf = topo.nodes_per_leaf;
    if (leaf < 1 || nodes % leaf != 0 || !topo.leaf_uplink_share.empty())
      return 0;
    slots = std::max(leaf, slots / leaf * leaf); // whole leaves, at least one
  }
  return nodes <= slots ? 0 : slots;
}

} // namespace ccsim::sim
