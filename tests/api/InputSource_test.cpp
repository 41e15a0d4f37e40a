// Topologies and workloads held in memory (a Python dict, a refit's trial constants) run exactly as the same files.
#include "api/process/Isolation.hpp"
#include "api/run/ReportJson.hpp"
#include "api/run/Simulation.hpp"
#include "io/JsonInput.hpp"

#include <catch2/catch.hpp>

using namespace ccsim::api;

namespace {
nlohmann::json eth40g()
{
  return ccsim::io::read_json_file(ccsim::io::resolve_preset("topologies", "v100x4-eth40g", "--topology"));
}

/// Adam on bert-large over 32 GPUs of the topology document `doc`, called `label`.
SimulateRequest adam_on(const nlohmann::json& doc, const std::string& label)
{
  SimulateRequest req;
  req.workload  = "bert-large";
  req.algorithm = "adam";
  req.gpus      = 32;
  req.topology  = InputSource::from_document(doc, label);
  return req;
}
} // namespace

TEST_CASE("InputSource: a document gives the same report as the file it was read from", "[api]")
{
  const auto topo_path = ccsim::io::resolve_preset("topologies", "v100x4-eth40g", "--topology");
  const auto work_path = ccsim::io::resolve_preset("workloads", "bert-large", "--workload");
  SimulateRequest by_name;
  by_name.topology  = "v100x4-eth40g";
  by_name.workload  = "bert-large";
  by_name.algorithm = "onebit-lamb";
  by_name.gpus      = 32;
  SimulateRequest by_document = by_name;
  by_document.topology = InputSource::from_document(ccsim::io::read_json_file(topo_path), topo_path);
  by_document.workload = InputSource::from_document(ccsim::io::read_json_file(work_path), work_path);
  auto a = to_json(run_simulation_isolated(by_name));
  auto b = to_json(run_simulation_isolated(by_document));
  a["sim"].erase("wall_s");
  b["sim"].erase("wall_s");
  CHECK(a == b);
}

TEST_CASE("InputSource: a changed constant in a document changes the answer - a bad one names the label", "[api]")
{
  auto doc            = eth40g();
  SimulateRequest req = adam_on(doc, "my cluster");
  const double base = run_simulation_isolated(req).breakdown.allreduce_ms;
  doc["nic"]["effective_gbps"] = doc["nic"]["effective_gbps"].get<double>() / 2;
  req.topology                 = InputSource::from_document(doc, "my cluster");
  CHECK(run_simulation_isolated(req).breakdown.allreduce_ms > 1.5 * base); // half the NIC rate, bandwidth-bound
  doc["gpus_per_node"] = -1;
  req.topology         = InputSource::from_document(doc, "my cluster");
  CHECK_THROWS_WITH(run_simulation_isolated(req), Catch::StartsWith("my cluster: /gpus_per_node:"));
}

TEST_CASE("InputSource: an InputCache converts a document once for all the requests that share it, and tells two "
          "documents of one label apart",
          "[api]")
{
  auto doc            = eth40g();
  SimulateRequest req = adam_on(doc, "trial");
  std::vector<SimulateRequest> copies(5, req); // a refit's points on one trial topology
  InputCache cache;
  for (const auto& r : copies)
    preload_inputs(r, cache);
  CHECK(cache.document_topologies.size() == 1);
  // Each simulation in a child of its own (one SimGrid engine per process), through the cache as a pool's child.
  const auto allreduce_ms = [&cache](const SimulateRequest& r) {
    return report_from_json(await_isolated(start_isolated_work([&] { return to_json(run_simulation(r, &cache)); })))
        .breakdown.allreduce_ms;
  };
  const double base = allreduce_ms(copies[3]);
  CHECK(cache.document_topologies.size() == 1);

  // The same label, other constants: its own entry and its own answer (half the NIC rate, bandwidth-bound).
  doc["nic"]["effective_gbps"] = doc["nic"]["effective_gbps"].get<double>() / 2;
  SimulateRequest slower       = req;
  slower.topology              = InputSource::from_document(doc, "trial");
  preload_inputs(slower, cache);
  CHECK(cache.document_topologies.size() == 2);
  const double halved = allreduce_ms(slower);
  CHECK(halved > 1.5 * base);
  // The entry keeps its document alive: dropping every request cannot free it for another document to reuse.
  const std::weak_ptr<const nlohmann::json> first = req.topology.document;
  copies.clear();
  req = SimulateRequest{};
  CHECK_FALSE(first.expired());
  CHECK((cache.document_topologies.count({"trial", first.lock().get()}) == 1));
}
