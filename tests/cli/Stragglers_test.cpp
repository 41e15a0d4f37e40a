// Stragglers and heterogeneous nodes on the command line (issue 16): closed forms of a slow GPU and of a node whose
// NIC runs at half rate, and one-line errors for bad knobs.
#include "tests/support/RunCcsim.hpp"
#include "tests/support/SimulateJson.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using ccsim::test::line_count;
using ccsim::test::run_ccsim;
using ccsim::test::simulate_json;
using ccsim::test::write_temp_file;

TEST_CASE("Stragglers: a GPU at half speed doubles a synchronous step's compute, the others wait for it", "[cli]")
{
  const std::string base = "--topology v100x8-ib100 --workload bert-large --algorithm lamb --gpus 16 ";
  const auto uniform = simulate_json(base);
  const auto slow    = simulate_json(base + "--slow-gpu 3:0.5");
  const double c0    = uniform["breakdown"]["compute_s"].get<double>();
  const double o0    = uniform["breakdown"]["optimizer_s"].get<double>();
  REQUIRE(o0 > 0); // LAMB's step is part of the wait below: the test must see it
  CHECK(slow["breakdown"]["compute_s"].get<double>() == Approx(2 * c0).epsilon(1e-12));
  CHECK(slow["breakdown"]["optimizer_s"].get<double>() == Approx(2 * o0).epsilon(1e-12));
  // 15 of 16 GPUs wait one nominal compute and optimizer time each: the average waits 15/16 of it; GPU 3 none.
  CHECK(slow["breakdown"]["straggler_wait_s"].get<double>() == Approx(15.0 / 16 * (c0 + o0)).epsilon(1e-12));
  CHECK(slow["ranks_idle_s"][3].get<double>() == Approx(0).margin(1e-12));
  CHECK(slow["ranks_idle_s"][0].get<double>() == Approx(c0 + o0).epsilon(1e-12));
  CHECK(uniform["breakdown"]["straggler_wait_s"].get<double>() == 0);
  CHECK_FALSE(uniform.contains("ranks_idle_s"));
  // A node's compute_scale in the topology does the same for all its GPUs.
  auto topo = nlohmann::json::parse(ccsim::test::read_file(std::string(CCSIM_SOURCE_DIR) + "/topologies/v100x8-ib100.json"));
  topo["nodes"] = {{"1", {{"compute_scale", 0.5}}}};
  const auto file = write_temp_file("slow-node.json", topo.dump());
  const auto node = simulate_json("--topology " + file + " --workload bert-large --algorithm lamb --gpus 16");
  CHECK(node["breakdown"]["compute_s"].get<double>() == Approx(2 * c0).epsilon(1e-12));
  CHECK(node["breakdown"]["straggler_wait_s"].get<double>() == Approx(8.0 / 16 * (c0 + o0)).epsilon(1e-12));
}

TEST_CASE("Stragglers: a slow GPU runs its compression kernels and optimizer step slower, and the step waits", "[cli]")
{
  // 1-bit Adam has compress/decompress kernels around its collectives and an optimizer step after them. Each sits
  // between two synchronisation points, so on a cluster with one GPU at speed f each lasts 1/f of nominal, while the
  // collectives (same bytes, idle network) take as long as before: step(f) = step(1) + (1/f - 1) (c0 + k0 + o0).
  const std::string base = "--topology v100x8-ib100 --workload bert-large --algorithm onebit-adam --gpus 16 ";
  const auto uniform = simulate_json(base);
  const auto slow    = simulate_json(base + "--slow-gpu 9:0.4");
  const auto& u = uniform["breakdown"];
  const auto& b = slow["breakdown"];
  const double c0 = u["compute_s"].get<double>(), k0 = u["compression_s"].get<double>(), o0 = u["optimizer_s"].get<double>();
  REQUIRE(k0 > 0);
  REQUIRE(o0 > 0);
  CHECK(b["compression_s"].get<double>() == Approx(k0 / 0.4).epsilon(1e-12));
  CHECK(b["optimizer_s"].get<double>() == Approx(o0 / 0.4).epsilon(1e-12));
  CHECK(b["comm_s"].get<double>() == Approx(u["comm_s"].get<double>()).epsilon(1e-9));
  CHECK(slow["step_time_s"].get<double>() ==
        Approx(uniform["step_time_s"].get<double>() + 1.5 * (c0 + k0 + o0)).epsilon(1e-9));
  // Every other GPU waits 1.5 nominal (compute + kernels + optimizer); the average 15/16 of that.
  CHECK(slow["ranks_idle_s"][0].get<double>() == Approx(1.5 * (c0 + k0 + o0)).epsilon(1e-12));
  CHECK(slow["ranks_idle_s"][9].get<double>() == Approx(0).margin(1e-12));
  CHECK(b["straggler_wait_s"].get<double>() == Approx(15.0 / 16 * 1.5 * (c0 + k0 + o0)).epsilon(1e-12));
  // The random model is compute jitter only: kernels and the optimizer keep their nominal time.
  const auto noisy = simulate_json(base + "--straggler-cv 0.3");
  CHECK(noisy["breakdown"]["compression_s"].get<double>() == k0);
  CHECK(noisy["breakdown"]["optimizer_s"].get<double>() == o0);
}

TEST_CASE("Stragglers: a slow GPU in a pipeline slows its own stage, and the schedule makes the others wait", "[cli]")
{
  // GPipe over p stages, m identical micro-batches, each stage a serial server (compute, then a serial sender of time
  // c): a tandem line of identical jobs, whose makespan is sum of the stage times + (m - 1) x the longest (flow-shop
  // closed form), per direction. With c < f and c < b, one stage at speed phi adds (1/phi - 1) f to the sum and to the
  // longest: m (f + b) (1/phi - 1) per step, plus its optimizer step's (1/phi - 1) o. Stretching every stage instead
  // would add (m + p - 1) (f + b) (1/phi - 1).
  const std::string base = "--topology v100x1-wan --workload gpt2-xl --algorithm fp32-pipeline --gpus 8 --pp 8 "
                           "--global-batch 32 --micro-batch 1 --bandwidth-gbps 10 ";
  const auto uniform = simulate_json(base);
  const auto slow    = simulate_json(base + "--slow-gpu 3:0.5");
  const double f = uniform["config"]["forward_ms_per_micro_batch"].get<double>() / 1e3;
  const double b = uniform["config"]["backward_ms_per_micro_batch"].get<double>() / 1e3;
  const double o = uniform["breakdown"]["optimizer_s"].get<double>();
  const int m    = uniform["config"]["grad_accumulation"].get<int>();
  const auto& phase = uniform["phases"][0]["breakdown"];
  REQUIRE(m == 32);
  REQUIRE(phase["pipeline_forward_comm_ms"].get<double>() / 1e3 < f); // the closed form's condition: compute-bound
  REQUIRE(phase["pipeline_backward_comm_ms"].get<double>() / 1e3 < b);
  CHECK(slow["step_time_s"].get<double>() - uniform["step_time_s"].get<double>() ==
        Approx(m * (f + b) + o).epsilon(1e-9));
}

TEST_CASE("Stragglers: a node whose NIC runs at half rate doubles a ring's bandwidth term", "[cli]")
{
  // W1, 8 GPUs (one per node), one 100 MiB ring all-reduce: 2 (N-1) (S/N / B + 2 alpha). Node 0's NIC at 50 Gbps
  // makes every ring step wait for it: 2 (N-1) (S/N / (B/2) + 2 alpha). B = 12.5e9 B/s, alpha = 1 us.
  auto topo = nlohmann::json::parse(ccsim::test::read_file(std::string(CCSIM_SOURCE_DIR) + "/topologies/w1-ring100g.json"));
  topo["nodes"] = {{"0", {{"nic_gbps", 50}}}};
  const auto file = write_temp_file("w1-half-nic.json", topo.dump());
  const double S = 104857600, N = 8;
  const double expected_us = 2 * (N - 1) * (S / N / 6.25e9 + 2e-6) * 1e6;
  for (const char* fidelity : {"fast", "exact"}) {
    const auto r = run_ccsim("collective --topology " + file + " --gpus 8 -b 100M -e 100M --format json --quiet "
                             "--fidelity " + fidelity);
    INFO(fidelity << ": " << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(nlohmann::json::parse(r.out)["rows"][0]["time_us"].get<double>() == Approx(expected_us).epsilon(1e-6));
  }
}

TEST_CASE("Stragglers: a node whose GPU ports run at half rate doubles its intra-node bandwidth terms", "[cli]")
{
  // v100x8-ib100: 8 GPUs per node on 56 Gbps ports (B = 7e9 B/s), 2 us per port (alpha = 4 us per hop), rdma.
  // One node, ring all-reduce of S = 100 MiB: 2 (n-1) (S/n / B + alpha), n = 8. Ports at 28 Gbps: B/2.
  // Two nodes, hierarchical: the intra-node reduce-scatter and all-gather, 2 (n-1) S/n / B of it, double on the slow
  // node and the inter-node ring waits for it, whichever node it is (node 1 as much as node 0: no round may be
  // simulated on node 0 alone for all nodes once their ports differ).
  auto topo = nlohmann::json::parse(ccsim::test::read_file(std::string(CCSIM_SOURCE_DIR) + "/topologies/v100x8-ib100.json"));
  topo.erase("nccl");                           // ccsim's own ring and hierarchical all-reduce, as derived below
  topo["intra_node"]["bandwidth_gbps"] = 56;    // the ports these closed forms use, whatever the preset's refit
  auto time_us = [&](int gpus, const char* fidelity, const nlohmann::json& nodes) {
    topo["nodes"]   = nodes;
    const auto file = write_temp_file("slow-ports.json", topo.dump());
    const auto r = run_ccsim("collective --topology " + file + " --gpus " + std::to_string(gpus) +
                             " -b 100M -e 100M --format json --quiet --fidelity " + fidelity);
    INFO(fidelity << ": " << r.err);
    REQUIRE(r.exit_code == 0);
    return nlohmann::json::parse(r.out)["rows"][0]["time_us"].get<double>();
  };
  const double S = 104857600, n = 8, B = 7e9, alpha = 4e-6;
  const nlohmann::json none = nlohmann::json::object();
  const nlohmann::json node0 = {{"0", {{"intra_gbps", 28}}}}, node1 = {{"1", {{"intra_gbps", 28}}}};
  for (const char* fidelity : {"fast", "exact"}) {
    CHECK(time_us(8, fidelity, none) == Approx(2 * (n - 1) * (S / n / B + alpha) * 1e6).epsilon(1e-9));
    CHECK(time_us(8, fidelity, node0) == Approx(2 * (n - 1) * (S / n / (B / 2) + alpha) * 1e6).epsilon(1e-9));
    const double uniform = time_us(16, fidelity, none);
    const double extra   = 2 * (n - 1) * S / n / B * 1e6;
    CHECK(time_us(16, fidelity, node0) == Approx(uniform + extra).epsilon(1e-9));
    CHECK(time_us(16, fidelity, node1) == Approx(uniform + extra).epsilon(1e-9));
  }
}

TEST_CASE("Stragglers: bad knobs are one-line errors naming the flag or the JSON path", "[cli]")
{
  const std::string base = "simulate --topology v100x8-ib100 --workload bert-large --algorithm lamb --gpus 16 --quiet ";
  for (const char* bad : {"--slow-gpu 3", "--slow-gpu 3:0", "--slow-gpu 3:nan", "--slow-gpu 99:0.5",
                          "--slow-gpu -1:0.5", "--slow-gpu 3:0.5 --slow-gpu 3:0.7", "--straggler-cv -0.1",
                          "--straggler-cv inf", "--straggler-cv 11", "--straggler-seed -3"}) {
    const auto r = run_ccsim(base + bad);
    INFO(bad << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(line_count(r.err) == 1);
  }
  auto topo = nlohmann::json::parse(ccsim::test::read_file(std::string(CCSIM_SOURCE_DIR) + "/topologies/v100x8-ib100.json"));
  const std::vector<std::pair<nlohmann::json, std::string>> nodes = {
      {{{"x", {{"compute_scale", 0.5}}}}, "/nodes/x"},
      {{{"16", {{"compute_scale", 0.5}}}}, "/nodes/16"}, // max_nodes is 16: ids 0..15
      {{{"03", {{"compute_scale", 0.5}}}}, "/nodes/03"}, // would name node 3 a second way
      {{{"-1", {{"compute_scale", 0.5}}}}, "/nodes/-1"},
      {{{"2", {{"compute_scale", 1001}}}}, "/nodes/2/compute_scale"},
      {{{"2", {{"compute_scale", "fast"}}}}, "/nodes/2/compute_scale"},
      {{{"2", 0.5}}, "/nodes/2"},
      {{{"2", {{"intra_gbps", 0}}}}, "/nodes/2/intra_gbps"},
      {{{"2", {{"intra_gbps", 1e7}}}}, "/nodes/2/intra_gbps"},
      {{{"2", {{"compute_scale", 0}}}}, "/nodes/2/compute_scale"},
      {{{"2", {{"nic_gbps", -1}}}}, "/nodes/2/nic_gbps"},
      {{{"2", {{"speed", 1}}}}, "/nodes/2/speed"},
  };
  for (const auto& [value, path] : nodes) {
    topo["nodes"]   = value;
    const auto file = write_temp_file("bad-nodes.json", topo.dump());
    const auto r    = run_ccsim("simulate --topology " + file + " --workload bert-large --algorithm lamb --gpus 16 --quiet");
    INFO(value.dump() << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(line_count(r.err) == 1);
    CHECK(r.err.find("bad-nodes.json: " + path) != std::string::npos);
  }
}
