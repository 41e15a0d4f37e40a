// A tc-shaped link (topology nic.shaper) and kernels measured by buffer size (gpu.kernel_gbps curves): closed forms.
#include "sim/platform/ShapedTransfer.hpp"
#include "sim/platform/Topology.hpp"
#include "io/InputError.hpp"
#include "tests/support/RunCcsim.hpp"
#include "tests/support/SimulateJson.hpp"

#include <catch2/catch.hpp>

#include <string>

using ccsim::test::write_temp_file;

namespace {
// One V100 per machine, 10 Gbit/s ports in binary megabits, a shaper of 50 ms queue and 0.5 efficiency.
const char* WAN = R"({
  "gpu": {"name": "V100", "sustained_tflops": 40, "memory_gbps": 900,
          "kernel_gbps": {"quant": {"16": 400, "64": 500, "source": "by size"}, "flat": 300}},
  "gpus_per_node": 1, "max_nodes": 8,
  "intra_node": {"kind": "none", "bandwidth_gbps": 100, "latency_us": 1},
  "nic": {"bandwidth_gbps": 10, "latency_us": 50, "bits_per_megabit": 1048576,
          "shaper": {"queue_ms": 50, "backlog_efficiency": 0.5}},
  "fabric": {"kind": "wan"}, "network_model": "rdma"})";

std::string error_of(const std::string& text)
{
  try {
    ccsim::sim::load_topology(write_temp_file("shaped.json", text));
  } catch (const ccsim::io::InputError& e) {
    return e.pointer() + ": " + e.problem();
  }
  return "(accepted)";
}

std::string with(const std::string& from, const std::string& to)
{
  std::string s = WAN;
  s.replace(s.find(from), from.size(), to);
  return s;
}
} // namespace

TEST_CASE("shaped_transfer_bytes: the queue's worth at the rate, the rest at the backlog efficiency", "[sim]")
{
  auto t = ccsim::sim::load_topology(write_temp_file("wan.json", WAN));
  const double mb = 1048576;
  // At the port's own rate nothing is shaped.
  CHECK_FALSE(ccsim::sim::shaped(t));
  CHECK(ccsim::sim::shaped_transfer_bytes(t, 8 * mb, true) == 8 * mb);
  // 0.3 Gbit/s in binary megabits: R = 300 x 2^20 / 8 = 39,321,600 bytes/s; q = R x 0.05 s = 1,966,080 bytes.
  ccsim::sim::override_inter_node_bandwidth(t, 0.3);
  REQUIRE(ccsim::sim::shaped(t));
  const double R = 300 * mb / 8, q = R * 0.05;
  CHECK(q == Approx(1966080));
  CHECK(ccsim::sim::shaped_transfer_bytes(t, 1e6, true) == 1e6);                // inside the queue: as sent
  CHECK(ccsim::sim::shaped_transfer_bytes(t, 6553600, true) == Approx(q + (6553600 - q) / 0.5));
  CHECK(ccsim::sim::shaped_transfer_bytes(t, 6553600, false) == 6553600);       // inside a node: no shaper
}

TEST_CASE("shaper: a long fp32 transfer on a shaped WAN takes (q + (B - q) / efficiency) / R", "[sim]")
{
  // GPT2-1.5B's fp32 activations, 1 x 1024 x 1600 x 4 = 6,553,600 bytes, from stage 0 to stage 1 at 0.3 Gbit/s.
  const auto topo = write_temp_file("wan-sim.json", WAN);
  const std::string run = "--topology " + topo + " --workload gpt2-xl --gpus 8 --pp 8 --global-batch 8 "
                          "--micro-batch 1 --algorithm fp32-pipeline --allow-oom ";
  const double mb = 1048576, R = 300 * mb / 8, q = R * 0.05, B = 6553600, latency = 2 * 50e-6 + 2 * 1e-6;
  const auto shaped = ccsim::test::simulate_json(run + "--bandwidth-gbps 0.3");
  CHECK(shaped["phases"][0]["breakdown"]["pipeline_forward_comm_ms"].get<double>() ==
        Approx(1e3 * ((q + (B - q) / 0.5) / R + latency)).epsilon(0.001));
  // At the port's rate (10 Gbit/s, binary) the transfer is payload / rate.
  const auto port = ccsim::test::simulate_json(run + "--bandwidth-gbps 10");
  CHECK(port["phases"][0]["breakdown"]["pipeline_forward_comm_ms"].get<double>() ==
        Approx(1e3 * (B / (10000 * mb / 8) + latency)).epsilon(0.001));
}

TEST_CASE("kernel_rate: a curve by buffer size is read linearly in log(size), held at its ends", "[sim]")
{
  const auto t = ccsim::sim::load_topology(write_temp_file("curve.json", WAN));
  const double mb = 1048576;
  // 32 MB is halfway between 16 and 64 MB in log(size): (400 + 500) / 2 GB/s.
  CHECK(t.gpu.kernel_rate("quant", 32 * mb) == Approx(450e9));
  CHECK(t.gpu.kernel_rate("quant", 16 * mb) == Approx(400e9));
  CHECK(t.gpu.kernel_rate("quant", 1 * mb) == Approx(400e9));   // below the smallest size: its rate
  CHECK(t.gpu.kernel_rate("quant", 4096 * mb) == Approx(500e9)); // above the largest: its rate
  CHECK(t.gpu.kernel_rate("flat", 1 * mb) == Approx(300e9));
  CHECK(t.gpu.kernel_rate("other", 1 * mb) == Approx(900e9 * 0.5)); // no entry: memory bandwidth x efficiency
}

TEST_CASE("load_topology: a bad shaper or kernel curve is one line at its path", "[sim]")
{
  CHECK(error_of(with("\"backlog_efficiency\": 0.5", "\"backlog_efficiency\": 1.5")) ==
        "/nic/shaper/backlog_efficiency: must be >= 0.001 and <= 1 (got 1.5)");
  CHECK(error_of(with("\"queue_ms\": 50,", "")) == "/nic/shaper/queue_ms: missing required field");
  CHECK(error_of(with("\"queue_ms\": 50", "\"queue_ms\": 50, \"burst\": 1")).rfind("/nic/shaper/burst: unknown field", 0) == 0);
  CHECK(error_of(with("\"16\": 400", "\"sixteen\": 400")).rfind("/gpu/kernel_gbps/quant/sixteen", 0) == 0);
  CHECK(error_of(with("\"16\": 400, \"64\": 500,", "")) == "/gpu/kernel_gbps/quant: needs at least one \"MB\": GB/s pair, or one number");
  CHECK(error_of(with("\"64\": 500", "\"64\": -1")) == "/gpu/kernel_gbps/quant/64: must be >= 0.001 and <= 100000 (got -1)");
}
