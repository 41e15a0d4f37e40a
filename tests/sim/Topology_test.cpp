// Topology files: valid ones load with units converted once; bad fields are one-line errors at their path.
#include "sim/platform/Topology.hpp"
#include "io/JsonInput.hpp"
#include "tests/support/RunCcsim.hpp"

#include <catch2/catch.hpp>

using ccsim::test::write_temp_file;

namespace {
const char* VALID = R"({
  "gpu": {"name": "A100", "sustained_tflops": 100, "memory_gbps": 1555},
  "gpus_per_node": 4, "max_nodes": 16,
  "intra_node": {"kind": "nvlink", "bandwidth_gbps": 2400, "latency_us": 1},
  "nic": {"bandwidth_gbps": 100, "effective_gbps": 80, "latency_us": 5},
  "fabric": {"kind": "switch"},
  "network_model": "rdma"})";

std::string error_of(const std::string& text)
{
  try {
    ccsim::sim::load_topology(write_temp_file("topo.json", text));
  } catch (const ccsim::io::InputError& e) {
    return e.pointer() + ": " + e.problem();
  }
  return "(accepted)";
}

std::string with(const std::string& from, const std::string& to)
{
  std::string s = VALID;
  s.replace(s.find(from), from.size(), to);
  return s;
}
} // namespace

TEST_CASE("load_topology: units are converted once (Gb/s to bytes/s / us to s)", "[sim]")
{
  const auto t = ccsim::sim::load_topology(write_temp_file("ok.json", VALID));
  CHECK(t.nic_bytes_per_s == Approx(80e9 / 8));
  CHECK(t.intra_bytes_per_s == Approx(2400e9 / 8));
  CHECK(t.nic_latency_s == Approx(5e-6));
  CHECK(t.max_gpus() == 64);
  // path latency between nodes: port + NIC + NIC + port
  CHECK(t.inter_node_latency_s() == Approx(12e-6));
}

TEST_CASE("load_topology: bad fields are reported at their JSON path", "[sim]")
{
  CHECK(error_of(with("\"effective_gbps\": 80", "\"effective_gbps\": -8")) == "/nic/effective_gbps: must be >= 0.0001 and <= 1000000 (got -8)");
  CHECK(error_of(with("\"effective_gbps\": 80", "\"effective_gbps\": 800")) ==
        "/nic/effective_gbps: must not exceed bandwidth_gbps (the nominal rate)");
  CHECK(error_of(with("\"rdma\"", "\"udp\"")) == "/network_model: 'udp' is not one of: rdma, tcp");
  CHECK(error_of(with("\"gpus_per_node\": 4", "\"gpus_per_node\": \"4\"")) == "/gpus_per_node: must be an integer, not string");
  CHECK(error_of(with("\"max_nodes\": 16,", "")) == "/max_nodes: missing required field");
  CHECK(error_of(with("\"fabric\"", "\"fabrik\"")).rfind("/fabrik: unknown field", 0) == 0);
}

TEST_CASE("override_inter_node_bandwidth: the link rate changes / the delivered share stays", "[sim]")
{
  auto t = ccsim::sim::load_topology(write_temp_file("ok2.json", VALID));
  ccsim::sim::override_inter_node_bandwidth(t, 10);
  // The file delivers 80 of 100 Gb/s; at 10 Gb/s nominal the node gets 8 Gb/s = 1e9 bytes/s.
  CHECK(t.node_uplink_bytes_per_s() == Approx(8e9 / 8));
}

TEST_CASE("load_topology: binary megabits scale every rate by 2^20 / 10^6", "[sim]")
{
  const auto t = ccsim::sim::load_topology(write_temp_file(
      "mb.json", with("\"latency_us\": 5}", "\"latency_us\": 5, \"bits_per_megabit\": 1048576}")));
  CHECK(t.nic_bytes_per_s == Approx(80e9 / 8 * 1.048576));
}

TEST_CASE("load_topology: the nccl block and the intra-node delivered rate", "[sim]")
{
  const std::string nccl = R"("network_model": "rdma", "nccl": {"gpu_arch": "hopper", "nvls": true, "nvls_gbps": 2100,
    "protocols": ["LL", "Simple"], "latency_us": {"net_extra": {"Simple": 12}}, "fill": {"tree": 0.5},
    "tuner_table": [{"max_bytes": 16384, "algorithm": "tree", "protocol": "Simple", "channels": 1}]})";
  const auto t = ccsim::sim::load_topology(write_temp_file("nccl.json", with("\"network_model\": \"rdma\"", nccl)));
  CHECK(t.nccl.present);
  CHECK(t.nccl.nvls_bytes_per_s == Approx(2100e9 / 8));
  CHECK(t.nccl.net_extra_s[2] == Approx(12e-6));
  CHECK(t.nccl.protocols.size() == 2);
  REQUIRE(t.nccl.tuner_table.size() == 1);
  CHECK(t.nccl.tuner_table[0].algo == ccsim::sim::Algo::TREE);
  CHECK(t.nccl.tuner_table[0].channels == 1);
  const auto e = ccsim::sim::load_topology(write_temp_file("eff.json", with("\"bandwidth_gbps\": 2400,", "\"bandwidth_gbps\": 2400, \"effective_gbps\": 1900,")));
  CHECK(e.intra_bytes_per_s == Approx(1900e9 / 8));
  CHECK(e.intra_nominal_bytes_per_s == Approx(2400e9 / 8));
  CHECK(error_of(with("\"bandwidth_gbps\": 2400,", "\"bandwidth_gbps\": 2400, \"effective_gbps\": 2500,")) ==
        "/intra_node/effective_gbps: must not exceed bandwidth_gbps (the line rate)");
  auto nccl_error = [&](const std::string& block) {
    return error_of(with("\"network_model\": \"rdma\"", "\"network_model\": \"rdma\", \"nccl\": " + block));
  };
  CHECK(nccl_error(R"({"nvls": true})") == "/nccl/gpu_arch: missing required field");
  CHECK(nccl_error(R"({"gpu_arch": "ampere", "nvls": true, "nvls_gbps": 100})") ==
        "/nccl/nvls: NVLS needs Hopper or later (gpu_arch ampere)");
  CHECK(nccl_error(R"({"gpu_arch": "hopper", "nvls": true})").find("/nccl/nvls: \"nvls\": true needs nvls_gbps") == 0);
  CHECK(nccl_error(R"({"gpu_arch": "hopper", "algorithms": ["rign"]})").find("/nccl/algorithms: element 0") == 0);
  CHECK(nccl_error(R"({"gpu_arch": "hopper", "p2p_gbps": 3000})") ==
        "/nccl/p2p_gbps: must not exceed intra_node.bandwidth_gbps (2400, the port's line rate)");
  CHECK(nccl_error(R"({"gpu_arch": "hopper", "tuner_table": [{"max_bytes": 9, "algorithm": "ring", "protocol": "LL"},
        {"max_bytes": 9, "algorithm": "ring", "protocol": "LL"}]})") == "/nccl/tuner_table/1/max_bytes: must grow from entry to entry");
  CHECK(error_of(with("\"network_model\": \"rdma\"", "\"network_model\": \"tcp\", \"nccl\": {\"gpu_arch\": \"volta\"}"))
            .find("/network_model: \"tcp\" with nccl.latency_model") == 0);
}
