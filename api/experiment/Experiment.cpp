// Experiment loading, expansion and the arithmetic of result rows (speedup, efficiency, error vs paper).
#include "api/experiment/Experiment.hpp"

#include "api/run/Metrics.hpp"
#include "io/JsonInput.hpp"
#include "io/Presets.hpp"
#include "sim/model/TrainingRecipe.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>

namespace ccsim::api {

namespace {
const std::vector<std::string> CONFIG_KEYS = {"topology", "workload", "algorithm",      "gpus",       "global_batch",
                                              "micro_batch", "tp",     "pp",             "bandwidth_gbps",
                                              "latency_us",  "network_model", "fidelity", "params",
                                              "straggler_cv", "straggler_seed", "vpp", "recompute",
                                              "memory_headroom_gb", "zero", "tp_overlap", "cp", "framework",
                                             "pipeline_p2p"};

/// A topology or workload given as a relative path is a file beside the experiment: resolved against `base_dir` (the
/// experiment file's folder; none for a document held in memory, whose paths resolve against the working directory).
/// A missing file is an error at once, saying where the path was looked for.
std::string resolve_beside(const io::JsonObject& obj, const std::string& key, const std::string& value,
                           const std::optional<std::filesystem::path>& base_dir)
{
  if (!base_dir || !io::looks_like_path(value) || std::filesystem::path(value).is_absolute())
    return value;
  const std::filesystem::path resolved = *base_dir / value;
  std::error_code ec;
  if (!std::filesystem::exists(resolved, ec)) {
    const std::string dir = base_dir->empty() ? "./" : (*base_dir / "").string();
    obj.fail_at(key, fmt::format("{} (resolved against {}, the experiment file's folder): no such file",
                                 io::echo(value), dir));
  }
  return resolved.string();
}

/// Applies one config key of `obj` (an object at `ptr` in `file`) to `req` and records it in `axes`.
void apply_key(const io::JsonObject& obj, const std::string& key, SimulateRequest& req, nlohmann::json& axes,
               const std::optional<std::filesystem::path>& base_dir)
{
  if (key == "topology" || key == "workload" || key == "algorithm" || key == "network_model" || key == "fidelity") {
    const std::string v = obj.string(key);
    if (key == "topology")
      req.topology = resolve_beside(obj, key, v, base_dir);
    else if (key == "workload")
      req.workload = resolve_beside(obj, key, v, base_dir);
    else if (key == "algorithm")
      req.algorithm = v;
    else if (key == "network_model")
      req.network_model = obj.choice(key, {"rdma", "tcp"});
    else
      req.fidelity = obj.choice(key, {"exact", "fast"});
    axes[key] = v;
  } else if (key == "gpus" || key == "tp" || key == "pp") {
    const int v = static_cast<int>(obj.integer_in(key, key == "gpus" ? io::range::kGpus : io::range::kParallelDegree));
    (key == "gpus" ? req.gpus : (key == "tp" ? req.tp.emplace() : req.pp.emplace())) = v;
    axes[key] = v;
  } else if (key == "global_batch" || key == "micro_batch") {
    const auto v = static_cast<std::uint64_t>(obj.integer_in(key, io::range::kBatch));
    (key == "global_batch" ? req.global_batch : req.micro_batch) = v;
    axes[key] = v;
  } else if (key == "bandwidth_gbps" || key == "latency_us") {
    const double v = obj.number_in(key, key == "bandwidth_gbps" ? io::range::kLinkGbps : io::range::kLatencyUs);
    (key == "bandwidth_gbps" ? req.bandwidth_gbps : req.latency_us) = v;
    axes[key] = v;
  } else if (key == "vpp" || key == "cp") {
    auto& v   = key == "vpp" ? req.vpp : req.cp;
    v         = static_cast<int>(obj.integer_in(key, io::range::kParallelDegree));
    axes[key] = *v;
  } else if (key == "recompute") {
    req.recompute = obj.choice(key, {"none", "selective", "full"});
    axes[key]     = *req.recompute;
  } else if (key == "zero") {
    req.zero  = static_cast<int>(obj.integer_in(key, io::range::kZeroStage));
    axes[key] = *req.zero;
  } else if (key == "framework") {
    req.framework = obj.choice(key, sim::known_frameworks());
    axes[key]     = *req.framework;
  } else if (key == "pipeline_p2p") {
    req.pipeline_p2p = obj.choice(key, sim::pipeline_p2p_modes());
    axes[key]        = *req.pipeline_p2p;
  } else if (key == "tp_overlap") {
    req.tp_overlap = obj.boolean(key);
    axes[key]      = *req.tp_overlap;
  } else if (key == "memory_headroom_gb") {
    req.memory_headroom_gb = obj.number_in(key, io::range::kMemoryHeadroomGb);
    axes[key]              = *req.memory_headroom_gb;
  } else if (key == "straggler_cv") {
    req.straggler_cv = obj.number_in(key, io::range::kStragglerCv);
    axes[key]        = req.straggler_cv;
  } else if (key == "straggler_seed") {
    req.straggler_seed = static_cast<std::uint64_t>(obj.integer_in(key, io::range::kSeed));
    axes[key]          = req.straggler_seed;
  } else if (key == "params") {
    const auto p = obj.object(key);
    for (const auto& [k, v] : p.raw().items()) {
      const double x = p.number(k); // a finite number; its range is the algorithm's (checked when the point runs)
      req.params[k]  = fmt::format("{}", x);
      axes["params." + k] = x;
    }
  }
}

void apply_config(const io::JsonObject& obj, SimulateRequest& req, nlohmann::json& axes,
                  const std::optional<std::filesystem::path>& base_dir)
{
  for (const auto& key : CONFIG_KEYS)
    if (obj.has(key))
      apply_key(obj, key, req, axes, base_dir);
}

/// An error_bound object: {"pct": the largest |error| in percent, "reason": why that wide}.
double error_bound_pct(const io::JsonObject& bound)
{
  bound.allow_only({"pct", "reason"});
  if (bound.string("reason").empty())
    bound.fail_at("reason", "must say why the bound is that wide");
  return bound.positive("pct");
}

std::vector<std::string> with(std::vector<std::string> v, std::initializer_list<const char*> more)
{
  v.insert(v.end(), more.begin(), more.end());
  return v;
}
} // namespace

Experiment load_experiment(const std::string& path)
{
  return experiment_from_json(io::read_json_file(path), path, std::filesystem::path(path).parent_path());
}

namespace {
/// A scaling or speedup figure's x and y axes are numbers: the plot sorts and scales them, so a text field of the rows
/// (algorithm, topology, a label) would fail the plot only after every point ran. Checked here, where the file is read.
void check_figure_axes(const io::JsonObject& fig, const Experiment& e)
{
  const std::string kind = e.figure["kind"].get<std::string>();
  if (kind != "scaling" && kind != "speedup-vs-bandwidth")
    return;
  // Result fields of a row that are text (ExperimentRow.cpp writes them); the rest are numbers or axes.
  static const std::set<std::string> kTextResults = {"label", "error", "fits_memory", "speedup_over", "intervals",
                                                     "phases", "paper", "predicted", "error_pct"};
  const std::pair<const char*, std::string> axes[] = {
      {"x", e.figure.value("x", kind == "scaling" ? "gpus" : "bandwidth_gbps")},
      {"y", e.figure.value("y", kind == "scaling" ? "samples_per_s" : "speedup")}};
  for (const auto& [key, field] : axes) {
    std::string example;
    if (kTextResults.count(field) != 0)
      example = "a text field of every row";
    for (const auto& pt : e.points)
      if (example.empty() && pt.axes.contains(field) && !pt.axes[field].is_number())
        example = "a row has " + io::echo(io::dump_json(pt.axes[field]));
    if (!example.empty())
      fig.fail_at(key, fmt::format("{} is not a number ({}); a figure's {} axis needs one: a metric such as "
                                   "samples_per_s, or a numeric axis such as gpus or bandwidth_gbps",
                                   io::echo(field), example, key));
  }
}
} // namespace

Experiment experiment_from_json(const nlohmann::json& doc, const std::string& path,
                                const std::optional<std::filesystem::path>& base_dir)
{
  const io::JsonObject root(doc, path);
  root.allow_only({"name", "base", "rows", "axes", "baseline", "figure", "paper_points", "error_bound"});
  Experiment e;
  e.path        = path;
  e.name        = root.string_or("name", std::filesystem::path(path).stem().string());
  // The name becomes the default output folder results/<name>: letters, digits, '.', '_' and '-' only, so a shared
  // file cannot aim the results elsewhere ("../../x") or smuggle characters into a path.
  const bool safe_name = !e.name.empty() && e.name.size() <= 100 && e.name[0] != '.' &&
                         std::all_of(e.name.begin(), e.name.end(), [](char c) {
                           return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
                         });
  if (!safe_name)
    root.fail_at("name", io::echo(e.name) + " must be 1-100 letters, digits, '.', '_' or '-', not starting with '.'");
  e.description = root.string_or("description", "");
  e.source      = root.string_or("source", "");

  SimulateRequest base;
  nlohmann::json base_axes = nlohmann::json::object();
  const auto b             = root.object("base");
  b.allow_only(CONFIG_KEYS);
  apply_config(b, base, base_axes, base_dir);

  // The gate on a calibration table's rows (issue 48): every paper value's |error| at most a bound, the table's
  // default or a row's own for one metric, each with the reason it is that wide.
  std::optional<double> default_bound;
  if (const auto bound = root.object_if("error_bound"))
    default_bound = error_bound_pct(*bound);

  // Rows: explicit points, each merged over the base; without rows, the base alone.
  std::vector<ExperimentPoint> rows;
  if (root.has("rows")) {
    const auto row_objects = root.objects("rows");
    if (row_objects.size() > io::limits::kMaxExperimentPoints)
      root.fail_at("rows", fmt::format("has {} rows; the limit is {} points", row_objects.size(),
                                       io::limits::kMaxExperimentPoints));
    if (row_objects.empty())
      root.fail_at("rows", "must hold at least one row (or leave it out to run the base alone)");
    for (const auto& r : row_objects) {
      r.allow_only(with(CONFIG_KEYS, {"paper", "label", "baseline", "error_bound"}));
      ExperimentPoint pt{base, base_axes, {}, r.string_or("label", ""), r.string_or("baseline", ""), {}};
      apply_config(r, pt.request, pt.axes, base_dir);
      if (const auto paper = r.object_if("paper")) {
        for (const auto& [metric, value] : paper->raw().items()) {
          if (metric.rfind("source", 0) == 0)
            continue;
          // a phase's metric must name a key phases have (api/run/Metrics.hpp), or it could never be predicted
          const bool known = metric_named(metric).has_value() || (metric.rfind("phase.", 0) == 0 && metric_kind(metric));
          if (!known)
            paper->fail_at(metric, fmt::format("unknown metric (known: {}, or phase.<name>.<metric>)",
                                               fmt::join(known_metrics(), ", ")));
          pt.paper[metric] = paper->positive(metric);
          if (default_bound)
            pt.error_bound_pct[metric] = *default_bound;
        }
      }
      if (const auto bounds = r.object_if("error_bound"))
        for (const auto& [metric, _] : bounds->raw().items()) {
          if (pt.paper.count(metric) == 0)
            bounds->fail_at(metric, "bounds the error of a paper value this row does not have");
          pt.error_bound_pct[metric] = error_bound_pct(bounds->object(metric));
        }
      rows.push_back(std::move(pt));
    }
  } else {
    rows.push_back({base, base_axes, {}, "", "", {}});
  }

  // Axes: every row is crossed with the cartesian product of the axes, in file order, last axis fastest. The count is
  // checked before anything is expanded: 10^6 values on one axis must be an error, not an allocation.
  e.points = rows;
  if (const auto axes = root.object_if("axes")) {
    std::uint64_t count = rows.size();
    for (const auto& [key, values] : axes->raw().items()) {
      count *= values.is_array() ? std::max<std::size_t>(values.size(), 1) : 1;
      if (count > io::limits::kMaxExperimentPoints)
        axes->fail_at(key, fmt::format("the experiment expands to more than {} points (rows x every axis)",
                                       io::limits::kMaxExperimentPoints));
    }
    for (const auto& [key, values] : axes->raw().items()) {
      const bool is_param = key.rfind("params.", 0) == 0;
      if (!is_param && (std::find(CONFIG_KEYS.begin(), CONFIG_KEYS.end(), key) == CONFIG_KEYS.end() || key == "params"))
        axes->fail_at(key, fmt::format("unknown axis (known: {}, params.<key>)", fmt::join(CONFIG_KEYS, ", ")));
      if (!values.is_array() || values.empty())
        axes->fail_at(key, "must be a non-empty array of values");
      std::vector<ExperimentPoint> next;
      for (const auto& pt : e.points) {
        for (std::size_t i = 0; i < values.size(); ++i) {
          ExperimentPoint p = pt;
          const nlohmann::json wrapper = is_param ? nlohmann::json{{"params", {{key.substr(7), values[i]}}}}
                                                  : nlohmann::json{{key, values[i]}};
          const io::JsonObject one(wrapper, path, axes->child_pointer(key) + "/" + std::to_string(i));
          try {
            apply_config(one, p.request, p.axes, base_dir);
          } catch (const io::InputError& err) {
            throw io::InputError(path, axes->child_pointer(key) + "/" + std::to_string(i), err.problem());
          }
          next.push_back(std::move(p));
        }
      }
      e.points = std::move(next);
    }
  }
  for (std::size_t i = 0; i < e.points.size(); ++i) {
    const auto& r = e.points[i].request;
    const char* missing = r.topology.empty() ? "topology" : r.workload.empty() ? "workload"
                        : r.algorithm.empty() ? "algorithm" : r.gpus == 0 ? "gpus" : nullptr;
    if (missing != nullptr)
      throw io::InputError(path, root.has("rows") ? "/rows/" + std::to_string(i % rows.size()) : "/base",
                           fmt::format("missing required field '{}' (in base, the row or an axis)", missing));
  }

  // Baselines: a row's own "baseline", else the one "by_algorithm" names for the point's algorithm (SDP4Bit over
  // Megatron's sharded DP, 1-bit Adam over Adam), else "algorithm". Each must be run by some point, or no speedup
  // could be computed against it.
  std::set<std::string> run_algorithms;
  for (const auto& pt : e.points)
    run_algorithms.insert(pt.request.algorithm);
  auto check_run = [&](const io::JsonObject& obj, const std::string& key, const std::string& algorithm) {
    if (run_algorithms.count(algorithm) == 0)
      obj.fail_at(key, io::echo(algorithm) + " is run by no point, so no speedup can be taken over it");
  };
  std::map<std::string, std::string> by_algorithm;
  if (const auto bl = root.object_if("baseline")) {
    bl->allow_only({"algorithm", "by_algorithm"});
    if (!bl->has("algorithm") && !bl->has("by_algorithm"))
      root.fail_at("baseline", "names no baseline: give \"algorithm\", \"by_algorithm\" or both");
    e.baseline_algorithm = bl->string_or("algorithm", "");
    if (!e.baseline_algorithm.empty())
      check_run(*bl, "algorithm", e.baseline_algorithm);
    if (const auto by = bl->object_if("by_algorithm"))
      for (const auto& [algorithm, _] : by->raw().items()) {
        if (run_algorithms.count(algorithm) == 0)
          by->fail_at(algorithm, io::echo(algorithm) + " (the algorithm this baseline is for) is run by no point");
        by_algorithm[algorithm] = by->string(algorithm);
        check_run(*by, algorithm, by_algorithm[algorithm]);
      }
  }
  if (root.has("rows"))
    for (const auto& r : root.objects("rows"))
      if (r.has("baseline"))
        check_run(r, "baseline", r.string("baseline"));
  for (auto& pt : e.points)
    if (pt.baseline.empty()) {
      const auto it = by_algorithm.find(pt.request.algorithm);
      pt.baseline   = it != by_algorithm.end() ? it->second : e.baseline_algorithm;
    }

  e.figure = {{"kind", "none"}};
  if (const auto fig = root.object_if("figure")) {
    // "panels": one subplot per value of that field (e.g. global_batch for 1-bit LAMB Fig. 3's panels).
    fig->allow_only({"kind", "x", "y", "series", "title", "log_x", "panels"});
    for (const char* key : {"x", "y", "title", "panels"})
      if (fig->has(key))
        fig->string(key); // each must be a string (the plot script reads them as names)
    // series: a field name, or a list of them whose values together name a series (SDP4Bit Fig. 7)
    if (fig->has("series") && !fig->raw()["series"].is_string())
      fig->strings("series");
    fig->boolean_or("log_x", false);
    e.figure         = fig->raw();
    e.figure["kind"] = fig->choice("kind", {"scaling", "speedup-vs-bandwidth", "breakdown", "paper-vs-predicted", "none"});
    check_figure_axes(*fig, e);
  }
  // The paper's own points for the figure, where the paper gives them outside this file's rows (another table of
  // the same paper): drawn over ccsim's lines with their source in the legend (plots/plot_experiment.py).
  if (const auto pp = root.object_if("paper_points")) {
    pp->allow_only({"source", "points"});
    const std::string kind = e.figure["kind"].get<std::string>();
    if (kind != "scaling" && kind != "speedup-vs-bandwidth")
      root.fail_at("paper_points", "is drawn on scaling and speedup-vs-bandwidth figures only (figure.kind is " +
                                       io::echo(kind) + ")");
    if (pp->string("source").empty())
      pp->fail_at("source", "must say where the points come from (paper, table or figure)");
    const std::string x = e.figure.value("x", kind == "scaling" ? "gpus" : "bandwidth_gbps");
    const std::string y = e.figure.value("y", kind == "scaling" ? "samples_per_s" : "speedup");
    const auto points   = pp->objects("points");
    if (points.empty() || points.size() > io::limits::kMaxExperimentPoints)
      pp->fail_at("points", fmt::format("must hold 1 - {} points", io::limits::kMaxExperimentPoints));
    for (const auto& point : points) {
      point.positive(x); // each point sits on the figure's axes: its x and y are positive numbers
      point.positive(y);
      for (const auto& [key, value] : point.raw().items())
        if (!value.is_string() && !value.is_number())
          point.fail_at(key, "must be a string or a number (a field the figure's series or panels name)");
    }
    e.paper_points = pp->raw();
  }
  return e;
}

} // namespace ccsim::api
