// `ccsim collective`: nccl-tests' columns, and times held to the alpha-beta closed forms on the W1 cluster
// (topologies/w1-ring100g.json: one GPU per node, 100 Gbps = 12.5e9 B/s and 1 us per link, so a message between
// two GPUs pays alpha = 2 us: up to the switch and down to the peer).
#include "tests/support/RunCcsim.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>

using ccsim::test::line_count;
using ccsim::test::run_ccsim;

namespace {
constexpr double B     = 12.5e9; // bytes/s of one link
constexpr double ALPHA = 2e-6;   // seconds per message

nlohmann::json collective(const std::string& args)
{
  const auto r = run_ccsim("collective --topology w1-ring100g --format json " + args);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out);
}

double seconds_of(const nlohmann::json& doc, std::size_t row = 0)
{
  return doc["rows"][row]["time_us"].get<double>() * 1e-6;
}
} // namespace

TEST_CASE("ccsim collective: a W1 ring all-reduce takes 2(N-1)(S/N/B + alpha) in both fidelities", "[cli]")
{
  // Issue 15/19's W1 numbers: 14.708 / 16.767 / 17.732 / 20.853 ms at N = 8 / 64 / 256 / 1,024 for S = 100 MiB.
  const double S = 104857600;
  for (const int n : {8, 64, 1024}) {
    const double expected = 2.0 * (n - 1) * (S / n / B + ALPHA);
    for (const char* fidelity : {"fast", "exact"}) {
      // 1,024 exact: 2,095,104 messages, each ring step timed on one node's flow (sim/collective/SymmetricRound.hpp)
      INFO(n << " GPUs, " << fidelity);
      const auto d = collective("--gpus " + std::to_string(n) + " -b 100M -e 100M --fidelity " + fidelity);
      CHECK(std::fabs(seconds_of(d) - expected) / expected < 1e-6);
      // nccl-tests: algbw = S / t, busbw = algbw x 2(n-1)/n (doc/PERFORMANCE.md)
      const double busbw = S / expected / 1e9 * 2.0 * (n - 1) / n;
      CHECK(std::fabs(d["rows"][0]["busbw_GBps"].get<double>() - busbw) / busbw < 1e-6);
    }
  }
}

TEST_CASE("ccsim collective: all-gather and reduce-scatter take (N-1)(S/N/B + alpha), all-to-all alpha + (N-1)S/(N B)",
          "[cli]")
{
  const double S = 4194304; // 4 MiB, N = 8
  const double ring  = 7 * (S / 8 / B + ALPHA);
  const double a2a   = ALPHA + 7.0 / 8 * S / B; // every rank sends 7 pieces of S/8 at once through its one link
  CHECK(seconds_of(collective("--gpus 8 -b 4M -e 4M --op all_gather")) == Approx(ring).epsilon(1e-9));
  CHECK(seconds_of(collective("--gpus 8 -b 4M -e 4M --op reduce_scatter")) == Approx(ring).epsilon(1e-9));
  CHECK(seconds_of(collective("--gpus 8 -b 4M -e 4M --op alltoall")) == Approx(a2a).epsilon(1e-9));
}

TEST_CASE("ccsim collective: the 1-bit compressed allreduce sends the signs and scales of OnebitLayout", "[cli]")
{
  // 4 MiB of fp32 = 2^20 values over 8 ranks: padded to a multiple of 8 x lcm(8, 8) = 64, so no padding.
  // alltoall of the packed signs, 2^20 / 8 = 131072 B per rank:      alpha + 7/8 x 131072 / B
  // allgather of the worker scales, 4 B each (32 B in all), twice:   7 (alpha + 4 / B)
  // allgather of the server signs, 131072 B in all:                 7 (alpha + 16384 / B)
  const double expected = (ALPHA + 7.0 / 8 * 131072 / B) + 2 * 7 * (ALPHA + 4 / B) + 7 * (ALPHA + 16384 / B);
  CHECK(seconds_of(collective("--gpus 8 -b 4M -e 4M --op onebit_allreduce")) == Approx(expected).epsilon(1e-9));
}

TEST_CASE("ccsim collective: a size sweep follows -b -e -f as nccl-tests does", "[cli]")
{
  const auto d = collective("--gpus 4 -b 1K -e 16K -f 4");
  REQUIRE(d["rows"].size() == 3);
  CHECK(d["rows"][0]["size"] == 1024);
  CHECK(d["rows"][1]["size"] == 4096);
  CHECK(d["rows"][2]["size"] == 16384);
  CHECK(d["rows"][2]["count"] == 4096); // float elements
}

TEST_CASE("ccsim collective: the table has nccl-tests' columns, out-of-place and in-place", "[cli]")
{
  const auto r = run_ccsim("collective --topology w1-ring100g --gpus 8 -b 8 -e 64");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("#       size         count      type   redop    root") != std::string::npos);
  CHECK(r.out.find("algbw       busbw  #wrong") != std::string::npos);
  CHECK(r.out.find("# Avg bus bandwidth") != std::string::npos);
  int data_lines = 0; // rows: size count type redop root, then 4 columns out-of-place and 4 in-place
  for (std::size_t pos = 0; pos < r.out.size();) {
    const auto end  = r.out.find('\n', pos);
    const auto line = r.out.substr(pos, end - pos);
    pos             = end + 1;
    if (!line.empty() && line[0] != '#')
      ++data_lines;
  }
  CHECK(data_lines == 4); // 8, 16, 32, 64
}

TEST_CASE("ccsim collective: bad sizes, ops and rank counts are one-line errors", "[cli]")
{
  for (const char* args : {"--gpus 8 --op allreduce", "--gpus 8 -b -1", "--gpus 8 -b 2T", "--gpus 8 -b 1M -e 1K",
                           "--gpus 1", "--gpus 2048", "--gpus 8 -f 0", "--gpus 8 -b 9999999G", "--gpus 8 --format xml"}) {
    const auto r = run_ccsim(std::string("collective --topology w1-ring100g ") + args);
    INFO(args << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(line_count(r.err) == 1);
  }
}

TEST_CASE("ccsim collective: CCSIM_SYMMETRY=off simulates every message of an all-to-all and gives the same time, "
          "a bad value is one line",
          "[cli]")
{
  // 32 nodes of 8 A100: 65,024 messages in exact mode, timed on 72 flows with the reduction (sim/collective/SymmetricRound.hpp).
  const std::string args = "collective --topology a100x8-ib100 --gpus 256 --op alltoall -b 16M -e 16M --fidelity exact "
                           "--format json";
  setenv("CCSIM_SYMMETRY", "off", 1);
  const auto full = run_ccsim(args);
  setenv("CCSIM_SYMMETRY", "on", 1);
  const auto reduced = run_ccsim(args);
  std::vector<ccsim::test::RunResult> bad;
  for (const char* value : {"", "OFF", "0", "of\xff", "offf", "on\n"}) {
    setenv("CCSIM_SYMMETRY", value, 1);
    bad.push_back(run_ccsim(args));
  }
  unsetenv("CCSIM_SYMMETRY");
  REQUIRE(full.exit_code == 0);
  REQUIRE(reduced.exit_code == 0);
  const auto f = nlohmann::json::parse(full.out), r = nlohmann::json::parse(reduced.out);
  CHECK(seconds_of(r) == Approx(seconds_of(f)).epsilon(1e-12));
  CHECK(r["sim"]["events"] == f["sim"]["events"]); // every message is counted either way
  CHECK(f["sim"]["events"].get<double>() == 256.0 * 255);
  for (const auto& b : bad) {
    INFO(b.err);
    CHECK(b.exit_code == 2);
    CHECK(line_count(b.err) == 1);
    CHECK(b.err.find("CCSIM_SYMMETRY") != std::string::npos);
  }
}

TEST_CASE("ccsim collective: NCCL's socket threads each get the per-flow ceiling - v100x4-eth10g's ring moves with the rate",
          "[cli]")
{
  // v100x4-eth10g: 32 nodes of 4 V100, NCCL's ring over its socket transport with 2 socket threads per connection
  // (AWS ENA), 2 connections per ring hop (1 searched channel, doubled), each thread under the 18 Gbit/s per-flow
  // ceiling: 4 x 18 = 72 Gbit/s through a node, 0.97 of it under LV08 (issue 48). A 680 MiB all-reduce over 128
  // ranks sends 2 (n - 1) / n S = 1.4149e9 B from each node. The ring's 253 hop latencies are what a 1 KiB one takes.
  auto seconds = [](const std::string& args) {
    const auto r = run_ccsim("collective --topology v100x4-eth10g --gpus 128 --format json --quiet " + args);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return nlohmann::json::parse(r.out)["rows"][0]["time_us"].get<double>() * 1e-6;
  };
  const double latency = seconds("-b 1K -e 1K --bandwidth-gbps 100");
  const double at25    = seconds("-b 680M -e 680M --bandwidth-gbps 25");
  const double at100   = seconds("-b 680M -e 680M --bandwidth-gbps 100");
  const double at400   = seconds("-b 680M -e 680M --bandwidth-gbps 400");
  INFO("latency " << latency << " s; 25: " << at25 << " s, 100: " << at100 << " s, 400: " << at400 << " s");
  const double sent = 2.0 * 127 / 128 * 680 * 1048576;
  // At 100 Gbit/s the four socket threads bind (72 x 0.97 = 69.8 Gbit/s), not the port.
  CHECK(at100 - latency == Approx(sent / (4 * 18e9 / 8 * 0.97)).epsilon(0.02));
  // At 25 Gbit/s the port binds: no faster than 25 x 0.97 Gbit/s, so the time moves with the rate.
  CHECK(at25 - latency >= sent / (25e9 / 8 * 0.97));
  CHECK(at25 > 1.8 * at100);
  // At 400 Gbit/s NCCL's search finds a channel of 48 GB/s and doubles it (search.cc ncclTopoDupChannels): 8 threads.
  CHECK(at400 < 0.8 * at100);
}

TEST_CASE("ccsim collective: v100x4-eth40g's all-reduce is its bytes at the NIC's rate from 2 to 64 nodes - NCCL's "
          "per-step latencies, not LV08's slow start per ring step",
          "[cli]")
{
  // 1-bit LAMB Table 5's Ethernet rows take the same time per unit of ring traffic from 4 to 64 nodes (issue 48,
  // docs/validation.md). The preset's NIC delivers 2.936 Gbit/s; a 680 MiB all-reduce sends 2 (n - 1) / n S from each
  // node on NCCL's ring (4 nodes on) and S once per NIC direction on its two-node double binary tree (NCCL 2.7.8's
  // pick there). NCCL's latencies add tens of microseconds per step: 4 ms over the 510 steps of 256 ranks, where
  // LV08's 13.01 x the route latency per message added 0.4 s (+10 %).
  auto seconds = [](int gpus) {
    const auto r = run_ccsim("collective --topology v100x4-eth40g --format json --quiet -b 680M -e 680M --gpus " +
                             std::to_string(gpus));
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const auto row = nlohmann::json::parse(r.out)["rows"][0];
    return std::pair{row["time_us"].get<double>() * 1e-6, row["algorithm"].get<std::string>()};
  };
  const double S = 680.0 * 1048576, nic = 2.936e9 / 8;
  const auto [two, two_algo]   = seconds(8);
  const auto [four, four_algo] = seconds(16);
  const auto [all, all_algo]   = seconds(256);
  CHECK(two_algo == "tree");
  CHECK(four_algo == "ring");
  CHECK(all_algo == "ring");
  CHECK(two == Approx(S / nic).epsilon(0.002));
  CHECK(four == Approx(2.0 * 15 / 16 * S / nic).epsilon(0.002));
  CHECK(all == Approx(2.0 * 255 / 256 * S / nic).epsilon(0.002));
}
