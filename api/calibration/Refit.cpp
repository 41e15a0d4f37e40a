// Refitting calibrated constants on a subset of rows; see Refit.hpp.
#include "api/calibration/Refit.hpp"

#include "api/experiment/ConfigHash.hpp"
#include "api/run/Metrics.hpp"
#include "api/process/ProcessPool.hpp"
#include "api/run/ReportJson.hpp"
#include "api/process/RunControl.hpp"
#include "api/run/Simulation.hpp"
#include "io/JsonInput.hpp"

#include <cmath>
#include <filesystem>
#include <map>
#include <stdexcept>

namespace ccsim::api {

namespace {
std::string canonical(const std::string& path)
{
  std::error_code ec;
  const auto c = std::filesystem::weakly_canonical(path, ec);
  return ec ? path : c.string();
}
} // namespace

Refitter::Refitter(const CalibrationFit& fit, int jobs)
    : fit_(fit), jobs_(jobs), engine_([this](const std::vector<double>& v) { return simulate_rows(v); }, {})
{
  topology_path_ = canonical(io::resolve_preset("topologies", fit.topology, "--topology"));
  topology_      = io::read_json_file(topology_path_);
  for (const auto& c : fit.constants)
    preset_.push_back(topology_.at(nlohmann::json::json_pointer(c)).get<double>());
  std::vector<double> measured;
  for (std::size_t t = 0; t < fit.tables.size(); ++t) {
    auto e     = load_experiment(io::resolve_preset("experiments", fit.tables[t], "--fits"));
    auto whole = e.points;
    e.points.clear();
    for (auto& p : whole)
      if (fit.every_point ||
          canonical(io::resolve_preset("topologies", p.request.topology.name, "--topology")) == topology_path_)
        e.points.push_back(std::move(p));
    for (std::size_t i = 0; i < e.points.size(); ++i)
      for (const auto& [metric, value] : e.points[i].paper) {
        rows_.push_back({t, i, e.points[i].label, metric, value});
        measured.push_back(value);
      }
    tables_.push_back(std::move(e));
  }
  // Every point runs on the same trial topology, so two points are the same simulation when their requests are equal
  // but for the topology: compared as experiment --resume compares them (api/experiment/ConfigHash.hpp).
  std::map<std::string, std::size_t> seen;
  for (std::size_t t = 0; t < tables_.size(); ++t) {
    distinct_of_.emplace_back();
    for (std::size_t i = 0; i < tables_[t].points.size(); ++i) {
      SimulateRequest same_topology = tables_[t].points[i].request;
      same_topology.topology        = InputSource::from_document(nlohmann::json::object(), "trial");
      const auto [it, fresh] = seen.emplace(io::dump_json(resolved_request(same_topology)), distinct_.size());
      if (fresh)
        distinct_.emplace_back(t, i);
      distinct_of_.back().push_back(it->second);
    }
  }
  engine_ = ConstantFit([this](const std::vector<double>& v) { return simulate_rows(v); }, std::move(measured));
}

std::vector<double> Refitter::simulate_rows(const std::vector<double>& values) const
{
  // The trial topology, in memory: every point of every table runs on it (named as the preset, so its reports are
  // the preset's but for the constants).
  auto topo = topology_;
  for (std::size_t i = 0; i < values.size(); ++i)
    topo[nlohmann::json::json_pointer(fit_.constants[i])] = values[i];
  const InputSource trial = InputSource::from_document(topo, topology_path_);
  std::vector<SimulateRequest> requests;
  for (const auto& [t, i] : distinct_) {
    requests.push_back(tables_[t].points[i].request);
    requests.back().topology = trial;
  }
  PoolOptions options;
  options.jobs       = jobs_;
  options.keep_going = true;
  const auto outcome = run_pool(requests.size(), simulation_task([&](std::size_t i) -> const SimulateRequest& {
                                  return requests[i];
                                }, requests.size()),
                                options);
  check_stop(""); // a signal or the time limit: no prediction to make
  // A point that failed (or a metric it lacks) predicts nothing: NaN, which the fit counts as far off.
  std::vector<double> out;
  for (const auto& r : rows_) {
    const auto& task = outcome.results[distinct_of_[r.table][r.point]];
    double v         = std::nan("");
    if (task.ok()) {
      try {
        v = metric_value(report_from_json(task.value), r.metric);
      } catch (const std::out_of_range&) {
      }
    }
    out.push_back(v);
  }
  return out;
}

} // namespace ccsim::api
