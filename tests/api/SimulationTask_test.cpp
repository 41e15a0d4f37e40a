// A pool's simulation task loads the files its requests name once, in the parent, before the pool forks (issue 49:
// parsing them again in every child was a third of a short validate simulation): the children must answer as a run
// that reads the files does, never read them again, and report a file that does not load exactly as before.
#include "api/process/ProcessPool.hpp"
#include "api/run/ReportJson.hpp"
#include "api/run/Simulation.hpp"
#include "io/JsonInput.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace ccsim::api;

namespace {
/// A copy of the bert-large workload preset in a folder of its own, removed at the end.
struct WorkloadCopy {
  std::filesystem::path dir, file;
  WorkloadCopy()
  {
    dir = std::filesystem::temp_directory_path() / ("ccsim-task-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    file = dir / "my-bert.json";
    std::filesystem::copy_file(ccsim::io::resolve_preset("workloads", "bert-large", "--workload"), file,
                               std::filesystem::copy_options::overwrite_existing);
  }
  ~WorkloadCopy() { std::filesystem::remove_all(dir); }
  void spoil() const { std::ofstream(file, std::ios::trunc) << "{\"name\": "; }
};

SimulateRequest request_on(const std::string& workload_file)
{
  SimulateRequest r;
  r.topology  = "v100x4-eth40g";
  r.workload  = workload_file;
  r.algorithm = "onebit-lamb";
  r.gpus      = 32;
  return r;
}

nlohmann::json without_wall_time(nlohmann::json report)
{
  report["sim"].erase("wall_s");
  return report;
}
} // namespace

TEST_CASE("Simulation task: the children answer from the files loaded before the fork, as a run reading them does",
          "[api]")
{
  const WorkloadCopy copy;
  const auto req      = request_on(copy.file.string());
  const auto expected = without_wall_time(to_json(run_simulation_isolated(req)));
  const std::vector<SimulateRequest> requests{req, req, req};
  const auto task = simulation_task([&](std::size_t i) -> const SimulateRequest& { return requests[i]; },
                                    requests.size());
  // The file is spoiled after the task was made: a child that read it again would fail to parse it.
  copy.spoil();
  PoolOptions options;
  options.jobs       = 2;
  const auto outcome = run_pool(requests.size(), task, options);
  for (const auto& r : outcome.results) {
    REQUIRE(r.ok());
    CHECK(without_wall_time(r.value) == expected);
  }
}

TEST_CASE("Simulation task: a file that does not load is reported by the child, with the message a single run gives",
          "[api]")
{
  const WorkloadCopy copy;
  copy.spoil();
  const auto req = request_on(copy.file.string());
  std::string single;
  try {
    (void)run_simulation_isolated(req);
  } catch (const ccsim::io::InputError& e) {
    single = e.what();
  }
  REQUIRE_THAT(single, Catch::Contains("my-bert.json"));
  const std::vector<SimulateRequest> requests{req};
  PoolOptions options;
  const auto outcome = run_pool(
      1, simulation_task([&](std::size_t i) -> const SimulateRequest& { return requests[i]; }, 1), options);
  REQUIRE(outcome.results[0].status == TaskResult::Status::INPUT_ERROR);
  CHECK(outcome.results[0].error == single);
}
