// The two-level fat-tree against closed forms: without oversubscription or fabric latency it times a ring like one
// switch (so inter-leaf flows take their own GPU's port and NIC), and a degraded leaf (fabric.leaves) slows what
// crosses its uplinks by the share it keeps.
#include "tests/support/RunCcsim.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using ccsim::test::line_count;
using ccsim::test::run_ccsim;
using ccsim::test::write_temp_file;

namespace {
nlohmann::json preset(const std::string& name)
{
  return nlohmann::json::parse(ccsim::test::read_file(std::string(CCSIM_SOURCE_DIR) + "/topologies/" + name + ".json"));
}

/// nccl-tests' time of one 100 MiB all-reduce on `gpus` GPUs of `topo`.
double allreduce_us(const nlohmann::json& topo, int gpus, const char* fidelity)
{
  const auto file = write_temp_file("fat-tree.json", topo.dump());
  const auto r    = run_ccsim("collective --topology " + file + " --gpus " + std::to_string(gpus) +
                              " -b 100M -e 100M --format json --quiet --fidelity " + fidelity);
  INFO(fidelity << ": " << r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out)["rows"][0]["time_us"].get<double>();
}
} // namespace

TEST_CASE("Fat-tree: non-blocking and without fabric latency, a ring across leaves runs as on one switch", "[cli]")
{
  // W1 (one GPU per node, 100 Gbps = B = 12.5e9 B/s and alpha = 1 us per NIC) as a fat-tree of 4 nodes per leaf:
  // 8 nodes, two leaves, each leaf's uplink 4 B. The ring crosses the leaves twice, one flow per uplink direction, so
  // the NICs bound it as on a switch: 2 (N-1) (S/N / B + 2 alpha). (Inter-leaf flows that left through the leaf's
  // first NIC, as SimGrid routed them before, shared it with that node's own flow: twice the bandwidth term.)
  auto topo      = preset("w1-ring100g");
  topo["fabric"] = {{"kind", "fat-tree"}, {"nodes_per_leaf", 4}};
  const double S = 104857600, N = 8;
  for (const char* fidelity : {"fast", "exact"})
    CHECK(allreduce_us(topo, 8, fidelity) == Approx(2 * (N - 1) * (S / N / 12.5e9 + 2e-6) * 1e6).epsilon(1e-9));
}

TEST_CASE("Fat-tree: an inter-leaf flow crosses its own GPU's port and NIC, as on a switch", "[cli]")
{
  // v100x8-ib100 (8 GPUs per node: ports of 56 Gbps and 2 us, NIC 55 Gbps) with each node its own leaf, non-blocking,
  // no fabric latency: every inter-node route is port, NIC, (leaf uplinks, never the bottleneck), NIC, port, exactly
  // as through the preset's switch, so a 16-GPU hierarchical all-reduce takes the switch's time.
  const auto flat    = preset("v100x8-ib100");
  auto tree          = flat;
  tree["fabric"]     = {{"kind", "fat-tree"}, {"nodes_per_leaf", 1}};
  for (const char* fidelity : {"fast", "exact"})
    CHECK(allreduce_us(tree, 16, fidelity) == Approx(allreduce_us(flat, 16, fidelity)).epsilon(1e-9));
}

TEST_CASE("Fat-tree: a leaf keeping 1/8 of its uplink capacity halves a ring's rate across it", "[cli]")
{
  // As above, leaf 1's uplinks keep 1/8 of 4 B = B/2 each way: the two crossing flows each get B/2, and every ring
  // step waits for them: 2 (N-1) (S/N / (B/2) + 2 alpha).
  auto topo      = preset("w1-ring100g");
  topo["fabric"] = {{"kind", "fat-tree"}, {"nodes_per_leaf", 4}, {"leaves", {{"1", {{"uplink_share", 0.125}}}}}};
  const double S = 104857600, N = 8;
  for (const char* fidelity : {"fast", "exact"})
    CHECK(allreduce_us(topo, 8, fidelity) == Approx(2 * (N - 1) * (S / N / 6.25e9 + 2e-6) * 1e6).epsilon(1e-9));
}

TEST_CASE("Fat-tree: bad degraded leaves are one-line errors at their JSON path", "[cli]")
{
  auto topo = preset("w1-ring100g"); // 1,024 nodes: 256 leaves of 4
  const std::vector<std::tuple<nlohmann::json, std::string>> cases = {
      {{{"kind", "switch"}, {"leaves", {{"0", {{"uplink_share", 0.5}}}}}}, "/fabric/leaves"},
      {{{"kind", "fat-tree"}, {"nodes_per_leaf", 4}, {"leaves", {{"256", {{"uplink_share", 0.5}}}}}}, "/fabric/leaves/256"},
      {{{"kind", "fat-tree"}, {"nodes_per_leaf", 4}, {"leaves", {{"01", {{"uplink_share", 0.5}}}}}}, "/fabric/leaves/01"},
      {{{"kind", "fat-tree"}, {"nodes_per_leaf", 4}, {"leaves", {{"x", {{"uplink_share", 0.5}}}}}}, "/fabric/leaves/x"},
      {{{"kind", "fat-tree"}, {"nodes_per_leaf", 4}, {"leaves", {{"1", {{"uplink_share", 0}}}}}}, "/fabric/leaves/1/uplink_share"},
      {{{"kind", "fat-tree"}, {"nodes_per_leaf", 4}, {"leaves", {{"1", {{"uplink_share", 1.5}}}}}}, "/fabric/leaves/1/uplink_share"},
      {{{"kind", "fat-tree"}, {"nodes_per_leaf", 4}, {"leaves", {{"1", {{"uplink_share", "half"}}}}}}, "/fabric/leaves/1/uplink_share"},
      {{{"kind", "fat-tree"}, {"nodes_per_leaf", 4}, {"leaves", {{"1", {{"share", 0.5}}}}}}, "/fabric/leaves/1/share"},
      {{{"kind", "fat-tree"}, {"nodes_per_leaf", 4}, {"leaves", {{"1", {}}}}}, "/fabric/leaves/1"},
  };
  for (const auto& [fabric, path] : cases) {
    topo["fabric"]  = fabric;
    const auto file = write_temp_file("bad-leaves.json", topo.dump());
    const auto r    = run_ccsim("collective --topology " + file + " --gpus 8 -b 1M -e 1M --quiet");
    INFO(fabric.dump() << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(line_count(r.err) == 1);
    CHECK(r.err.find("bad-leaves.json: " + path) != std::string::npos);
  }
}
