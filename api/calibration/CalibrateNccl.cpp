// calibrate --nccl-tests; see CalibrateNccl.hpp.
#include "api/calibration/CalibrateNccl.hpp"

#include "api/calibration/CalibratedTopology.hpp"
#include "api/calibration/ConstantFit.hpp"
#include "api/calibration/NcclTestsText.hpp"
#include "api/run/CollectiveSweep.hpp"
#include "algorithms/CollectiveOps.hpp"
#include "sim/platform/NcclConfigJson.hpp"
#include "sim/platform/NcclVersion.hpp"
#include "sim/platform/Topology.hpp"
#include "io/JsonInput.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

namespace ccsim::api {

namespace {
/// `topo` with the NIC delivering `gbps` and `latency_us` (ccsim's own collectives).
sim::Topology with_nic(sim::Topology topo, double gbps, double latency_us)
{
  topo.nic_bytes_per_s = gbps * topo.bytes_per_s_per_gbps();
  topo.nic_latency_s   = sim::link_latency_s(latency_us);
  return topo;
}

/// The logs of the request, read and checked against the topology.
std::vector<NcclLog> read_logs(const NcclCalibrationRequest& req, const sim::Topology& topo,
                               std::vector<NcclLogInfo>& infos, const std::vector<std::string>& plain)
{
  std::vector<NcclLog> logs;
  for (const auto& file : req.files) {
    const auto table = read_nccl_tests(file);
    NcclLogInfo info;
    info.file         = file;
    // --op names the collective where the log's header does not (replacing what its columns suggest); --ranks gives
    // the rank count where the log shows none (neither Rank lines nor a bus factor that pins it).
    const bool op_flag = req.op && table.op_from != "header";
    info.op           = op_flag ? *req.op : table.op.value_or("");
    info.op_from      = op_flag ? "--op" : table.op_from;
    info.nodes        = table.nodes;
    info.nccl_version = table.nccl_version;
    info.nccl_algo    = table.nccl_algo;
    info.nccl_proto   = table.nccl_proto;
    if (info.op.empty())
      throw io::InputError(file, "", "does not name its collective: pass --op (all_reduce, all_gather, ...)");
    const auto* bench = algorithms::find_collective_bench(info.op);
    if (bench == nullptr || std::find(plain.begin(), plain.end(), bench->name) == plain.end())
      throw io::InputError(op_flag ? "--op" : file, "",
                           io::echo(info.op) + " is not a collective ccsim replays (all_reduce, all_gather, "
                                               "reduce_scatter, alltoall, sendrecv)");
    // A log's ranks: --ranks, the log's own Rank lines, or what its bus factor shows (api/calibration/NcclTestsText.hpp).
    const bool ranks_flag = req.ranks && !table.ranks;
    info.ranks      = ranks_flag ? *req.ranks : table.ranks.value_or(0);
    info.ranks_from = ranks_flag ? "--ranks" : table.ranks_from;
    if (info.ranks == 0)
      throw io::InputError(file, "", "does not say how many ranks ran: pass --ranks N");
    if (info.ranks > topo.max_gpus())
      throw io::InputError(ranks_flag ? "--ranks" : file, "",
                           fmt::format("{} ranks but topology {} has {} GPUs", info.ranks, topo.name, topo.max_gpus()));
    if (table.nodes && *table.nodes > 1 && info.ranks % *table.nodes == 0 &&
        info.ranks / *table.nodes != topo.gpus_per_node)
      throw io::InputError(file, "",
                           fmt::format("ran {} ranks on {} hosts ({} per node) but topology {} has {} GPUs per node",
                                       info.ranks, *table.nodes, info.ranks / *table.nodes, topo.name,
                                       topo.gpus_per_node));
    NcclLog log;
    log.file  = file;
    log.op    = bench->name;
    log.ranks = info.ranks;
    log.rows  = table.rows;
    for (const auto& r : table.rows) // a single bad measurement (a first call): 1.5 x its in-place twin
      log.flagged.push_back(r.in_place_time_us && r.time_us > 1.5 * *r.in_place_time_us);
    logs.push_back(std::move(log));
    infos.push_back(std::move(info));
  }
  return logs;
}

/// Whether two names of an algorithm or protocol are the same one: case aside, and "nvls_tree" (ccsim) is NCCL's
/// "NVLSTree".
bool same_name(const std::string& a, const std::string& b)
{
  auto key = [](const std::string& s) {
    std::string k;
    for (const char ch : s)
      if (ch != '_')
        k += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return k;
  };
  return key(a) == key(b);
}

/// NCCL_ALGO (or NCCL_PROTO) as the fit forces it, and what set it: the flag's name, or the file of the log that
/// states it (errors name it).
struct RunCondition {
  std::optional<std::string> value;
  std::string source;
};

/// The NCCL_ALGO (or NCCL_PROTO) the logs ran with: the flag, or what the logs state (NCCL_DEBUG=INFO), which must
/// then agree with each other and with the flag. `stated` reads a log's statement; `variable` names it in errors. A
/// log that states nothing says nothing: NCCL chose per size, as the topology's model does.
RunCondition run_condition(const std::optional<std::string>& flag, const std::string& flag_name,
                           const std::vector<NcclLogInfo>& logs, std::optional<std::string> NcclLogInfo::*stated,
                           const std::string& variable)
{
  // NCCL takes a list or an exclusion ("Tree,Ring", "^Tree") and chooses among what is left; ccsim forces one.
  auto is_set = [](const std::string& v) { return v.find_first_of(",^") != std::string::npos; };
  const NcclLogInfo* first = nullptr; // the first log that states it
  for (const auto& l : logs) {
    const auto& v = l.*stated;
    if (!v)
      continue;
    if (is_set(*v) && !flag)
      throw io::InputError(l.file, "",
                           fmt::format("ran with {}={}, a set NCCL chose from per size: pass {} with the one it ran, "
                                       "or leave the log to NCCL's choice by removing that line",
                                       variable, io::echo(*v), flag_name));
    if (first == nullptr)
      first = &l;
    else if (!same_name(*(first->*stated), *v))
      throw io::InputError(l.file, "",
                           fmt::format("ran with {}={} where {} ran with {}: fit logs of one setting together",
                                       variable, io::echo(*v), io::printable(first->file, 200),
                                       io::echo(*(first->*stated))));
  }
  if (flag) {
    if (first != nullptr && !same_name(*flag, *(first->*stated)) && !is_set(*(first->*stated)))
      throw io::InputError(flag_name, "",
                           fmt::format("{} contradicts {}, which states {}={}", io::echo(*flag),
                                       io::printable(first->file, 200), variable, io::echo(*(first->*stated))));
    return {flag, flag_name};
  }
  return first != nullptr ? RunCondition{first->*stated, first->file} : RunCondition{};
}

/// What the release predates, named as sim::added_in names it, the tree first; the NVLS pair only where the cluster
/// has NVLS (`nvls`).
std::vector<std::string> predated(const sim::NcclVersion& v, bool nvls)
{
  std::vector<std::string> out;
  for (const sim::Algo a : {sim::Algo::TREE, sim::Algo::NVLS, sim::Algo::NVLS_TREE})
    if ((a == sim::Algo::TREE || nvls) && !sim::release_has(v, a))
      out.push_back(sim::added_in(a));
  if (!sim::release_has(v, sim::Proto::LL128))
    out.push_back(sim::added_in(sim::Proto::LL128));
  return out;
}

/// The NCCL release the logs' banners state ("NCCL version 2.26.6+cuda12.8"), which must agree on what it runs; the
/// file that stated it goes in `file`. Nothing when no log states one.
std::optional<sim::NcclVersion> logs_release(const std::vector<NcclLogInfo>& logs, std::string& file)
{
  std::optional<sim::NcclVersion> out;
  for (const auto& l : logs) {
    if (!l.nccl_version)
      continue;
    const auto v = sim::parse_nccl_version(*l.nccl_version);
    if (!v)
      continue; // a banner of another form: the log says nothing ccsim reads
    if (!out) {
      out  = v;
      file = l.file;
    } else if (predated(*v, true) != predated(*out, true)) {
      throw io::InputError(l.file, "",
                           fmt::format("ran NCCL {} where {} ran NCCL {}, which differ in the algorithms they have: "
                                       "fit logs of one release together",
                                       v->text(), io::printable(file, 200), out->text()));
    }
  }
  return out;
}

/// Notes on what the release predates among what the cluster would otherwise run.
std::vector<std::string> release_notes(const sim::Topology& topo, const sim::NcclVersion& v, const std::string& file)
{
  std::vector<std::string> notes;
  std::string list;
  for (const auto& m : predated(v, topo.nccl.nvls))
    list += (list.empty() ? "" : ", ") + m;
  if (!list.empty())
    notes.push_back(fmt::format("NCCL {} ({}) predates {}: not chosen for any size", v.text(), io::printable(file, 200),
                                list));
  if (!v.at_least(2, 5, 6))
    notes.push_back(fmt::format("NCCL {} chose algorithms by size thresholds, before the cost model (2.5.6) that "
                                "ccsim emulates: the choice per size may differ",
                                v.text()));
  return notes;
}

/// Replays every log on `topo` by simulation and fills the rows and the errors.
void replay(NcclCalibration& c, const sim::Topology& topo, const std::vector<NcclLog>& logs, sim::Fidelity fidelity)
{
  std::vector<double> kept, all;
  for (const auto& log : logs) {
    const auto* bench = algorithms::find_collective_bench(log.op);
    std::vector<std::uint64_t> sizes;
    for (const auto& r : log.rows)
      sizes.push_back(r.bytes);
    const auto simulated = simulate_sweep(topo, *bench, log.ranks, sizes, fidelity, false).seconds;
    const double bus     = algorithms::bus_bandwidth_factor(*bench, log.ranks);
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      NcclCalibrationRow row;
      row.file            = log.file;
      row.size            = sizes[i];
      row.measured_us     = log.rows[i].time_us;
      row.predicted_us    = simulated[i] * 1e6;
      row.measured_busbw  = static_cast<double>(sizes[i]) / (row.measured_us * 1e3) * bus;
      row.predicted_busbw = static_cast<double>(sizes[i]) / (row.predicted_us * 1e3) * bus;
      row.flagged         = log.flagged[i];
      if (const auto plan = bench_plan(topo, *bench, log.ranks, sizes[i])) {
        row.algorithm  = sim::to_string(plan->algo);
        row.protocol   = sim::to_string(plan->proto);
        row.bottleneck = plan->bottleneck;
        row.model_us   = plan->seconds() * 1e6;
      }
      all.push_back(std::abs(row.error()));
      if (!row.flagged)
        kept.push_back(std::abs(row.error()));
      c.rows.push_back(row);
    }
  }
  double sum_sq = 0;
  for (const auto& r : c.rows)
    sum_sq += r.error() * r.error();
  c.rms_relative_error = std::sqrt(sum_sq / static_cast<double>(c.rows.size()));
  auto& errors = kept.empty() ? all : kept;
  std::sort(errors.begin(), errors.end());
  const std::size_t n  = errors.size();
  c.median_abs_error   = n % 2 == 1 ? errors[n / 2] : 0.5 * (errors[n / 2 - 1] + errors[n / 2]);
  c.worst_abs_error    = errors.back();
}

/// ccsim's own collectives: the NIC's delivered bandwidth and latency by Gauss-Newton on a simulated replay.
void fit_nic_constants(NcclCalibration& c, sim::Topology& topo, const NcclLog& log, sim::Fidelity fidelity)
{
  const auto* bench = algorithms::find_collective_bench(log.op);
  std::vector<std::uint64_t> sizes;
  std::vector<double> measured;
  for (const auto& r : log.rows) {
    sizes.push_back(r.bytes);
    measured.push_back(r.time_us * 1e-6);
  }
  if (sizes.size() < 2)
    throw io::InputError(log.file, "", "needs at least two sizes (one latency-bound, one bandwidth-bound)");
  // The constants as the fit moves them: u = 1 / Gbps (the simulated time is affine in it) and the latency in us.
  ConstantFit engine(
      [&](const std::vector<double>& x) {
        return simulate_sweep(with_nic(topo, 1 / x[0], x[1]), *bench, log.ranks, sizes, fidelity, false).seconds;
      },
      measured);
  using P        = ConstantFit::Parameter;
  const auto fit = engine.gauss_newton({P{topo.bytes_per_s_per_gbps() / topo.nic_bytes_per_s, P::Bound::POSITIVE, 0, 0},
                                        P{topo.nic_latency_s * 1e6, P::Bound::NON_NEGATIVE, 0.01, 1e-3}});
  if (!fit)
    throw io::InputError("--nccl-tests", "",
                         "these measurements do not pin down both the NIC bandwidth and latency (one of them, or "
                         "the inter-node NIC itself, does not change the simulated times): give sizes from a few KB "
                         "to hundreds of MB over ranks on several nodes");
  c.gbps       = 1 / (*fit)[0];
  c.latency_us = (*fit)[1];
  io::check_range(c.latency_us, io::range::kLatencyUs, false, "fitted nic.latency_us");
  const double nominal = topo.nic_nominal_bytes_per_s / topo.bytes_per_s_per_gbps();
  if (c.gbps > nominal) {
    c.warnings.push_back(fmt::format(
        "nic.effective_gbps: the fit wants {:.4g} Gbps per NIC, above the NICs' line rate of {:g} Gbps, and is held "
        "there. ccsim's own ring and hierarchical all-reduce move more bytes than NCCL's tree does on 2 nodes (S per "
        "node each way where a ring moves 2(n-1)/n S): give the topology an \"nccl\" block to fit NCCL's algorithms, "
        "or check the NIC count and rate",
        c.gbps, nominal));
    c.gbps = nominal;
  } else if (c.gbps < 0.5 * nominal) {
    c.warnings.push_back(fmt::format(
        "nic.effective_gbps: the fit gives {:.4g} Gbps per NIC, {:.0f} % of the NICs' line rate of {:g} Gbps, below "
        "half of it: NICs deliver 80-97 % of their line rate. Check the NIC count and rate, or give the topology an "
        "\"nccl\" block to fit NCCL's algorithms",
        c.gbps, 100 * c.gbps / nominal, nominal));
  }
  io::check_range(c.gbps, io::range::kLinkGbps, false, "fitted nic.effective_gbps");
  topo = with_nic(topo, c.gbps, c.latency_us);
}
} // namespace

NcclCalibration calibrate_nccl(const NcclCalibrationRequest& req)
{
  const std::string topo_path = io::resolve_preset("topologies", req.topology, "--topology");
  sim::Topology topo          = sim::load_topology(topo_path);
  auto doc                    = io::read_json_file(topo_path);
  if (req.files.empty())
    throw io::InputError("--nccl-tests", "", "give at least one nccl-tests file");
  const std::vector<std::string> plain = {"all_reduce", "all_gather", "reduce_scatter", "alltoall", "sendrecv"};
  if (req.op && std::find(plain.begin(), plain.end(), *req.op) == plain.end())
    throw io::InputError("--op", "", io::echo(*req.op) + " is not a collective ccsim replays (all_reduce, all_gather, "
                                                         "reduce_scatter, alltoall, sendrecv)");
  // The logs' run conditions: a tuner plugin's table (kept in the output: it is how the cluster runs), and NCCL_ALGO /
  // NCCL_PROTO from the flags or the logs (not kept: they are not the cluster's).
  if (req.tuner_table) {
    if (!topo.nccl.present)
      throw io::InputError("--tuner-table", "", "topology " + topo.name + " has no \"nccl\" block to hold a tuner table");
    const auto table = io::read_json_file(*req.tuner_table);
    const io::JsonObject root(table, *req.tuner_table);
    root.allow_only({"tuner_table"});
    topo.nccl.tuner_table       = sim::tuner_table_from_json(root);
    doc["nccl"]["tuner_table"]  = table["tuner_table"];
  }
  NcclCalibration c;
  const auto logs = read_logs(req, topo, c.logs, plain);
  const auto algo  = run_condition(req.algo, "--algo", c.logs, &NcclLogInfo::nccl_algo, "NCCL_ALGO");
  const auto proto = run_condition(req.proto, "--proto", c.logs, &NcclLogInfo::nccl_proto, "NCCL_PROTO");
  c.algo           = algo.value;
  c.proto          = proto.value;
  c.algo_from      = req.algo ? "--algo" : (c.algo ? "the log" : "");
  c.proto_from     = req.proto ? "--proto" : (c.proto ? "the log" : "");
  // The release the logs ran: what it predates is neither fitted nor replayed, and the written topology states it.
  std::string release_file;
  const auto release = topo.nccl.present ? logs_release(c.logs, release_file) : std::nullopt;
  std::vector<std::string> release_lines;
  if (release) {
    if (topo.nccl.version && topo.nccl.version->text() != release->text())
      release_lines.push_back(fmt::format("topology {} states NCCL {}; the logs ran {}, which is fitted and written",
                                          topo.name, topo.nccl.version->text(), release->text()));
    topo.nccl.version = release;
    const auto more   = release_notes(topo, *release, release_file);
    release_lines.insert(release_lines.end(), more.begin(), more.end());
  }
  force_collective(topo, c.algo, c.proto, algo.source, proto.source);
  // NCCL's latency model has its own constants to fit; the links' latency model (ccsim's alpha-beta collectives, the
  // papers' presets) has two: the NICs' delivered bandwidth and their latency.
  c.nccl_model = topo.nccl.present && topo.nccl.latency == sim::LatencyModel::NCCL;
  if (!req.fit) { // --no-fit: the same replay on the topology as given, which is then neither changed nor written
    c.fitted = false;
    c.notes  = release_lines;
    replay(c, topo, logs, req.fidelity);
    return c;
  }
  if (c.nccl_model) {
    auto fit     = fit_nccl_constants(topo, logs);
    topo         = fit.topo;
    c.constants  = fit.constants;
    c.warnings   = fit.warnings;
    c.notes      = fit.notes;
    write_nccl_constants(doc, fit);
  } else {
    if (logs.size() != 1)
      throw io::InputError("--nccl-tests", "",
                           "topology " + topo.name + " times its collectives by its links' latency: its two NIC "
                                                     "constants come from one log");
    fit_nic_constants(c, topo, logs.front(), req.fidelity);
    doc["nic"]["effective_gbps"] = c.gbps;
    doc["nic"]["latency_us"]     = c.latency_us;
  }
  c.notes.insert(c.notes.end(), release_lines.begin(), release_lines.end());
  if (release) {
    doc["nccl"]["version"]        = release->text();
    doc["nccl"]["source_version"] = "the `NCCL version` banner of " + io::printable(release_file, 200) +
                                    " (ccsim calibrate --nccl-tests)";
  }
  replay(c, topo, logs, req.fidelity);

  // The source note: which logs, which command, how well the replay reproduces them.
  std::string files, flags;
  for (const auto& f : req.files)
    files += (files.empty() ? "" : ", ") + io::printable(f, 200);
  if (c.algo)
    flags += " --algo " + io::printable(*c.algo, 40) + (req.algo ? "" : " (NCCL_ALGO as the log states it)");
  if (c.proto)
    flags += " --proto " + io::printable(*c.proto, 40) + (req.proto ? "" : " (NCCL_PROTO as the log states it)");
  const std::string fitted = c.nccl_model ? "the collective model's constants" : "effective_gbps and latency_us";
  std::string command = "ccsim calibrate --topology " + io::printable(req.topology, 200);
  for (const auto& f : req.files)
    command += " --nccl-tests " + io::printable(f, 200);
  if (req.tuner_table)
    command += " --tuner-table " + io::printable(*req.tuner_table, 200);
  const std::string note = fmt::format(
      "{}{}: {} fitted to {} rows of {} ({} fidelity replay: median |error| {:.3g} %, worst {:.3g} % over the rows "
      "not flagged as bad measurements)",
      command, flags, fitted, c.rows.size(), files, req.fidelity == sim::Fidelity::EXACT ? "exact" : "fast",
      100 * c.median_abs_error, 100 * c.worst_abs_error);
  (c.nccl_model ? doc["nccl"] : doc["nic"])["source_calibration"] = note;
  // Issue 48: the replay's residuals go with the topology, so a simulation on it counts as calibrated and draws its
  // likely range from them (sim/platform/Topology.hpp CalibrationResiduals; api/run/Intervals.hpp).
  nlohmann::json residuals = nlohmann::json::array();
  for (const auto& r : c.rows)
    if (!r.flagged)
      residuals.push_back(100 * r.error());
  if (!residuals.empty())
    doc["calibration"] = {{"source", "the replay's errors per size after " + note},
                          {"gpus", c.logs.front().ranks},
                          {"inter_node_gbps", topo.node_uplink_bytes_per_s() * 8 / 1e9},
                          {"residuals_pct", residuals}};
  else
    doc.erase("calibration");
  write_calibrated_topology(doc, req.out);
  return c;
}

nlohmann::json to_json(const NcclCalibration& c, const std::string& out)
{
  nlohmann::json rows = nlohmann::json::array(), constants = nlohmann::json::array(), logs = nlohmann::json::array();
  for (const auto& r : c.rows)
    rows.push_back({{"file", r.file}, {"size", r.size}, {"measured_us", r.measured_us}, {"predicted_us", r.predicted_us},
                    {"fitted_us", r.predicted_us}, {"model_us", r.model_us}, {"error", r.error()},
                    {"measured_busbw_GBps", r.measured_busbw}, {"predicted_busbw_GBps", r.predicted_busbw},
                    {"algorithm", r.algorithm}, {"protocol", r.protocol}, {"bottleneck", r.bottleneck},
                    {"flagged", r.flagged}});
  for (const auto& k : c.constants)
    constants.push_back({{"name", k.name}, {"pointer", k.pointer}, {"before", k.before}, {"after", k.after},
                         {"lo", k.lo}, {"hi", k.hi}});
  for (const auto& l : c.logs)
    logs.push_back({{"file", l.file}, {"op", l.op}, {"op_from", l.op_from}, {"ranks", l.ranks},
                    {"ranks_from", l.ranks_from}, {"nodes", l.nodes ? nlohmann::json(*l.nodes) : nlohmann::json(nullptr)},
                    {"nccl_version", l.nccl_version ? nlohmann::json(*l.nccl_version) : nlohmann::json(nullptr)},
                    {"nccl_algo", l.nccl_algo ? nlohmann::json(*l.nccl_algo) : nlohmann::json(nullptr)},
                    {"nccl_proto", l.nccl_proto ? nlohmann::json(*l.nccl_proto) : nlohmann::json(nullptr)}});
  auto forced = [](const std::optional<std::string>& v, const std::string& from) {
    return v ? nlohmann::json{{"value", *v}, {"from", from}} : nlohmann::json(nullptr);
  };
  nlohmann::json doc = {{"topology", c.fitted ? nlohmann::json(out) : nlohmann::json(nullptr)},
                        {"fitted", c.fitted},
                        {"forced_algo", forced(c.algo, c.algo_from)},
                        {"forced_proto", forced(c.proto, c.proto_from)},
                        {"model", c.nccl_model ? "nccl" : "links"},
                        {"op", c.logs.front().op},
                        {"ranks", c.logs.front().ranks},
                        {"logs", logs},
                        {"constants", constants},
                        {"median_abs_error", c.median_abs_error},
                        {"worst_abs_error", c.worst_abs_error},
                        {"rms_relative_error", c.rms_relative_error},
                        {"warnings", c.warnings},
                        {"notes", c.notes},
                        {"rows", rows}};
  if (!c.nccl_model && c.fitted) {
    doc["effective_gbps"] = c.gbps;
    doc["latency_us"]     = c.latency_us;
  }
  return doc;
}

} // namespace ccsim::api
