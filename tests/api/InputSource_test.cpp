// Topologies and workloads held in memory (a Python dict, a refit's trial constants) run exactly as the same files.
#include "api/run/ReportJson.hpp"
#include "api/run/Simulation.hpp"
#include "io/JsonInput.hpp"

#include <catch2/catch.hpp>

using namespace ccsim::api;

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
  const auto topo_path = ccsim::io::resolve_preset("topologies", "v100x4-eth40g", "--topology");
  auto doc             = ccsim::io::read_json_file(topo_path);
  SimulateRequest req;
  req.workload  = "bert-large";
  req.algorithm = "adam";
  req.gpus      = 32;
  req.topology  = InputSource::from_document(doc, "my cluster");
  const double base = run_simulation_isolated(req).breakdown.allreduce_ms;
  doc["nic"]["effective_gbps"] = doc["nic"]["effective_gbps"].get<double>() / 2;
  req.topology                 = InputSource::from_document(doc, "my cluster");
  CHECK(run_simulation_isolated(req).breakdown.allreduce_ms > 1.5 * base); // half the NIC rate, bandwidth-bound
  doc["gpus_per_node"] = -1;
  req.topology         = InputSource::from_document(doc, "my cluster");
  CHECK_THROWS_WITH(run_simulation_isolated(req), Catch::StartsWith("my cluster: /gpus_per_node:"));
}
