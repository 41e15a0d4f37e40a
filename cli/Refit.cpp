// Refitting calibrated constants on a subset of rows; see Refit.hpp.
#include "cli/Refit.hpp"

#include "cli/ExperimentRunner.hpp"
#include "cli/OutputFile.hpp"
#include "sim/io/JsonInput.hpp"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <unistd.h>

namespace ccsim::cli {

namespace {
std::string canonical(const std::string& path)
{
  std::error_code ec;
  const auto c = std::filesystem::weakly_canonical(path, ec);
  return ec ? path : c.string();
}
} // namespace

Refitter::Refitter(const CalibrationFit& fit, int jobs) : fit_(fit), jobs_(jobs)
{
  const auto topo_path = canonical(io::resolve_preset("topologies", fit.topology, "--topology"));
  topology_            = io::read_json_file(topo_path);
  for (const auto& c : fit.constants)
    preset_.push_back(topology_.at(nlohmann::json::json_pointer(c)).get<double>());
  // One file per refitter and process: forked simulations read it by path.
  temp_path_ = (std::filesystem::temp_directory_path() /
                fmt::format("ccsim-refit-{}-{}.json", getpid(), std::filesystem::path(topo_path).stem().string()))
                   .string();
  for (std::size_t t = 0; t < fit.tables.size(); ++t) {
    auto e     = load_experiment(io::resolve_preset("experiments", fit.tables[t], "--fits"));
    auto whole = e.points;
    e.points.clear();
    for (auto& p : whole)
      if (fit.every_point || canonical(io::resolve_preset("topologies", p.request.topology, "--topology")) == topo_path) {
        p.request.topology = temp_path_;
        e.points.push_back(std::move(p));
      }
    for (std::size_t i = 0; i < e.points.size(); ++i)
      for (const auto& [metric, value] : e.points[i].paper.items())
        rows_.push_back({t, i, e.points[i].label, metric, value.get<double>()});
    tables_.push_back(std::move(e));
  }
}

const std::vector<double>& Refitter::predict(const std::vector<double>& values)
{
  if (const auto it = memo_.find(values); it != memo_.end())
    return it->second;
  auto topo = topology_;
  for (std::size_t i = 0; i < values.size(); ++i)
    topo[nlohmann::json::json_pointer(fit_.constants[i])] = values[i];
  write_output_file(temp_path_, io::dump_json(topo, 2) + "\n", "--fits");
  std::vector<std::vector<nlohmann::json>> rows_of(tables_.size());
  for (std::size_t t = 0; t < tables_.size(); ++t) {
    RunnerOptions options;
    options.jobs       = jobs_;
    options.progress   = false;
    options.keep_going = true;
    const auto outcome = run_points(tables_[t], options);
    simulations_ += tables_[t].points.size();
    rows_of[t] = assemble_rows(tables_[t], outcome.results);
  }
  std::vector<double> out;
  for (const auto& r : rows_) {
    const auto& row = rows_of[r.table][r.point];
    const bool ok   = row.contains("predicted") && row["predicted"].contains(r.metric) &&
                    row["predicted"][r.metric].is_number();
    out.push_back(ok ? row["predicted"][r.metric].get<double>() : std::nan(""));
  }
  std::filesystem::remove(temp_path_);
  return memo_[values] = out;
}

double Refitter::loss(const std::vector<double>& values, const std::vector<bool>& use)
{
  const auto& predicted = predict(values);
  double sum = 0;
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    if (!use[i])
      continue;
    // A configuration the trial constants make impossible (or a failed point) is as bad as a factor e^10 off.
    const double e = predicted[i] > 0 && std::isfinite(predicted[i]) ? std::log(predicted[i] / rows_[i].paper) : 10;
    sum += e * e;
  }
  return sum;
}

std::vector<double> Refitter::fit(const std::vector<bool>& use, std::vector<double> start)
{
  constexpr double kTolerance = 0.002; // in log space: 0.2 %
  const double golden         = (std::sqrt(5.0) - 1) / 2;
  for (int sweep = 0; sweep < 4; ++sweep) {
    double moved = 0;
    for (std::size_t c = 0; c < start.size(); ++c) {
      auto at = [&](double log_value) {
        auto v = start;
        v[c]   = std::exp(log_value);
        return loss(v, use);
      };
      double lo = std::log(start[c] / 2), hi = std::log(start[c] * 2);
      double a = hi - golden * (hi - lo), b = lo + golden * (hi - lo);
      double fa = at(a), fb = at(b);
      while (hi - lo > kTolerance) {
        if (fa <= fb) {
          hi = b, b = a, fb = fa;
          a  = hi - golden * (hi - lo);
          fa = at(a);
        } else {
          lo = a, a = b, fa = fb;
          b  = lo + golden * (hi - lo);
          fb = at(b);
        }
      }
      const double best = std::exp(fa <= fb ? a : b);
      moved             = std::max(moved, std::abs(std::log(best / start[c])));
      start[c]          = best;
    }
    if (start.size() == 1 || moved <= kTolerance)
      break;
  }
  return start;
}

} // namespace ccsim::cli
