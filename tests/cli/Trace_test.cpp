// `ccsim simulate --trace FILE` (Chrome trace events) and `--links` over time: the spans and link bytes add up to the
// step breakdown the same run reports.
#include "tests/support/RunCcsim.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <map>
#include <set>

using ccsim::test::read_file;
using ccsim::test::run_ccsim;
using ccsim::test::temp_dir;

namespace {
struct Traced {
  nlohmann::json doc;   // the simulate document
  nlohmann::json trace; // the trace file
};

Traced simulate_traced(const std::string& args, const std::string& name)
{
  const auto file = (temp_dir() / (name + ".trace.json")).string();
  const auto r    = run_ccsim("simulate " + args + " --trace " + file + " --links --format json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return {nlohmann::json::parse(r.out), nlohmann::json::parse(read_file(file))};
}

/// Seconds of the complete events of one category on one thread of one process.
double span_seconds(const nlohmann::json& trace, int pid, int tid, const std::string& category)
{
  double us = 0;
  for (const auto& e : trace["traceEvents"])
    if (e["ph"] == "X" && e["pid"] == pid && e["tid"] == tid && e["cat"] == category)
      us += e["dur"].get<double>();
  return us * 1e-6;
}
} // namespace

TEST_CASE("simulate --trace: per phase, a rank's spans add up to the breakdown and name every collective", "[cli]")
{
  const auto t = simulate_traced("--topology v100x8-ib100 --workload bert-large --algorithm onebit-lamb --gpus 16 "
                                 "--micro-batch 64",
                                 "onebit");
  REQUIRE(t.doc["phases"].size() == 2);
  for (int p = 0; p < 2; ++p) {
    const auto& b = t.doc["phases"][p]["breakdown"];
    const int pid = p + 1; // one process per phase, in phase order
    for (const int rank : {0, 15}) {
      const int tid = 2 * rank;
      CHECK(span_seconds(t.trace, pid, tid, "compute") == Approx(b["compute_s"].get<double>()).epsilon(1e-9));
      CHECK(span_seconds(t.trace, pid, tid, "collective") == Approx(b["comm_s"].get<double>()).epsilon(1e-9));
      CHECK(span_seconds(t.trace, pid, tid, "kernel") == Approx(b["compression_s"].get<double>()).margin(1e-12));
      CHECK(span_seconds(t.trace, pid, tid, "optimizer") == Approx(b["optimizer_s"].get<double>()).epsilon(1e-9));
    }
  }
  std::set<std::string> collectives;
  for (const auto& e : t.trace["traceEvents"])
    if (e["ph"] == "X" && e["pid"] == 2 && e["cat"] == "collective")
      collectives.insert(e["name"].get<std::string>());
  // the compressed stage's plan (algorithms/onebit/OnebitPlan.cpp)
  CHECK(collectives == std::set<std::string>{"alltoall momentum signs", "allgather worker scales",
                                             "allgather server signs", "allgather server scales"});
}

TEST_CASE("simulate --trace: beyond 64 ranks a track stands for a node", "[cli]")
{
  const auto t = simulate_traced("--topology v100x8-ib100 --workload bert-large --algorithm lamb --gpus 128 "
                                 "--micro-batch 64",
                                 "nodes");
  std::set<int> tids;
  for (const auto& e : t.trace["traceEvents"])
    if (e["ph"] == "X")
      tids.insert(e["tid"].get<int>());
  CHECK(tids.size() == 16); // 128 GPUs / 8 per node
  CHECK(t.trace["otherData"]["tracks"] == "one per node (its first GPU)");
}

TEST_CASE("simulate --trace: pipeline stages carry their sends on a lane of their own", "[cli]")
{
  const auto t = simulate_traced("--topology v100x1-wan --workload gpt2-xl --algorithm aq-sgd --gpus 8 --pp 8", "pipe");
  int sends = 0, stage_compute = 0;
  for (const auto& e : t.trace["traceEvents"]) {
    if (e["ph"] != "X")
      continue;
    sends += e["cat"] == "pipeline send" && e["tid"].get<int>() % 2 == 1;
    stage_compute += e["cat"] == "compute" && e["tid"].get<int>() % 2 == 0;
  }
  CHECK(sends > 0);
  CHECK(stage_compute > 0);
}

TEST_CASE("simulate --links: the NIC bytes over time add up to the inter-node bytes of every phase", "[cli]")
{
  // rdma (CM02, no cross-traffic): a link's cumulated load is exactly the bytes that crossed it. Every inter-node
  // byte leaves through one NIC's UP half, so per phase sum(UP bytes) = inter_node bytes per GPU x GPUs.
  const auto t = simulate_traced("--topology v100x8-ib100 --workload bert-large --algorithm onebit-adam --gpus 32 "
                                 "--micro-batch 64",
                                 "links");
  const auto& lot = t.doc["links_over_time"];
  std::map<std::string, double> up_bytes;
  for (const auto& iv : lot["intervals"])
    for (std::size_t l = 0; l < lot["links"].size(); ++l) {
      const auto name = lot["links"][l].get<std::string>();
      if (name.rfind("nic", 0) == 0 && name.size() > 3 && name.substr(name.size() - 3) == "_UP")
        up_bytes[iv["phase"].get<std::string>()] += iv["bytes"][l].get<double>();
    }
  for (const auto& p : t.doc["phases"]) {
    const double expected = p["bytes_per_gpu"]["inter_node"].get<double>() * 32;
    CHECK(up_bytes[p["name"].get<std::string>()] == Approx(expected).epsilon(1e-9));
  }
}

TEST_CASE("simulate --plot needs --links, and --trace to an unwritable place is one line", "[cli]")
{
  const std::string base = "simulate --topology v100x8-ib100 --workload bert-large --algorithm adam --gpus 8 ";
  auto r = run_ccsim(base + "--plot " + (temp_dir() / "p").string());
  CHECK(r.exit_code == 2);
  CHECK(ccsim::test::line_count(r.err) == 1);
  r = run_ccsim(base + "--trace /nonexistent-dir/t.json");
  CHECK(r.exit_code == 2);
  CHECK(ccsim::test::line_count(r.err) == 1);
}
