// An experiment's points through the process pool, plus the MPI split of points across ranks.
#include "api/experiment/ExperimentRunner.hpp"

#include "api/experiment/Mpi.hpp"
#include "api/process/RunControl.hpp"
#include "api/run/ReportJson.hpp"
#include "api/run/Simulation.hpp"
#include "io/JsonInput.hpp"

#include <fmt/format.h>

namespace ccsim::api {

namespace {
PointResult point_result(const TaskResult& task)
{
  PointResult r;
  if (task.ok())
    r.report = report_from_json(task.value);
  else if (task.failed()) {
    r.error      = task.error;
    r.error_kind = task.status == TaskResult::Status::INPUT_ERROR ? "input" : "crash";
  }
  return r;
}

/// What a rank sends rank 0 for one point: the report's JSON, {"error", "error_kind"}, or null (not run).
nlohmann::json point_json(const PointResult& r)
{
  if (r.report)
    return to_json(*r.report);
  if (r.failed())
    return {{"error", r.error}, {"error_kind", r.error_kind}};
  return nullptr;
}

PointResult point_from_json(const nlohmann::json& j)
{
  PointResult r;
  if (j.is_object() && j.contains("error")) {
    r.error      = j["error"].get<std::string>();
    r.error_kind = j["error_kind"].get<std::string>();
  } else if (!j.is_null()) {
    r.report = report_from_json(j);
  }
  return r;
}
} // namespace

std::string describe_point(const Experiment& e, std::size_t index)
{
  std::string axes;
  for (const auto& [k, v] : e.points[index].axes.items())
    axes += (axes.empty() ? "" : ", ") + k + "=" + (v.is_string() ? v.get<std::string>() : io::dump_json(v));
  const auto& label = e.points[index].label;
  return fmt::format("point {} of {} ({}{})", index + 1, e.points.size(), label.empty() ? "" : label + ": ",
                     io::printable(axes, 160));
}

RunOutcome run_points(const Experiment& e, const RunnerOptions& opt)
{
  RunOutcome out;
  out.results    = std::vector<PointResult>(e.points.size());
  auto& results  = out.results;
  const int size = mpi_size();
  const int rank = mpi_rank();
  std::vector<std::size_t> mine, todo;
  for (std::size_t i = rank; i < e.points.size(); i += static_cast<std::size_t>(size))
    mine.push_back(i);
  for (const auto i : mine) {
    if (i < opt.known.size() && opt.known[i])
      results[i] = *opt.known[i]; // resumed, or found unable to run before the run
    else
      todo.push_back(i);
  }
  const std::size_t resumed = mine.size() - todo.size();

  PoolOptions pool;
  pool.jobs       = opt.jobs;
  pool.keep_going = opt.keep_going;
  if (opt.on_progress && rank == 0)
    pool.on_progress = [&](const PoolProgress& p) {
      opt.on_progress(resumed + p.finished, mine.size(), resumed, p.running, p.failed);
    };
  pool.on_finished = [&](std::size_t i, const TaskResult& task) {
    results[i] = point_result(task);
    if (opt.on_finished)
      opt.on_finished(i, results[i]);
  };
  const auto outcome = run_pool(e.points.size(), todo,
                                simulation_task([&e](std::size_t i) -> const SimulateRequest& { return e.points[i].request; },
                                                e.points.size()),
                                pool);
  out.stopped = outcome.stopped;
  // After a signal the ranks stop on their own, not together (mpirun may signal one rank only): no collective call
  // that could wait forever. Their finished points are in their rank logs. A time limit stops every rank, each by its
  // own clock, so they all reach the gather.
  if (size > 1 && out.stopped && stop_signal() != 0)
    out.gathered = false;
  if (size > 1 && out.gathered) {
    // Every rank sends its answers (JSON text) to rank 0, which puts them back in point order.
    nlohmann::json payload = nlohmann::json::array(); // [[index, answer], ...]
    for (auto i : mine)
      payload.push_back({i, point_json(results[i])});
    const auto parts = mpi_gather_at_rank0(io::dump_json(payload));
    for (std::size_t r = 1; r < parts.size(); ++r)
      for (const auto& item : nlohmann::json::parse(parts[r]))
        results[item[0].get<std::size_t>()] = point_from_json(item[1]);
  }
  return out;
}

} // namespace ccsim::api
