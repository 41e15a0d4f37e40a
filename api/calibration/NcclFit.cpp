// The NCCL model's constants from nccl-tests logs; see NcclFit.hpp.
#include "api/calibration/NcclFit.hpp"

#include "algorithms/CollectiveOps.hpp"
#include "api/calibration/ConstantFit.hpp"
#include "api/run/CollectiveSweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

namespace ccsim::api {

namespace {
constexpr double GBPS = 1e9 / 8; // bytes/s in one Gbit/s
constexpr double US   = 1e-6;

/// One free constant: its bounds, its prior, how it sets a topology, where the file keeps it.
struct Spec {
  std::string name, pointer;
  double start = 0, lo = 0, hi = 0;
  bool log_scale    = true;
  double prior      = 0, prior_weight = 0.02, prior_scale = 20;
  bool bandwidth    = false; // fitted in stage A, then held there by a strong prior
  bool stage_a      = false; // fitted in stage A too (the bandwidths and the fill, an offset of the large sizes)
  double line_share = 0;     // an efficiency: v x the line rate in `line_gbps` (0: not one)
  double line_gbps  = 0;
  std::function<void(sim::Topology&, double)> apply;
};

bool allows(const std::vector<sim::Algo>& list, sim::Algo a)
{
  return list.empty() || std::find(list.begin(), list.end(), a) != list.end();
}

bool allows(const std::vector<sim::Proto>& list, sim::Proto p)
{
  return list.empty() || std::find(list.begin(), list.end(), p) != list.end();
}

std::vector<Spec> free_constants(const sim::Topology& t, const std::vector<NcclLog>& logs)
{
  bool multi = false, multi_gpu = false, sendrecv = false, all_reduce = false, small = false, below_256m = false,
       below_1g = false, nvls_single = false, nvls_multi = false, reducing = false;
  for (const auto& log : logs) {
    const int nodes = (log.ranks + t.gpus_per_node - 1) / t.gpus_per_node;
    multi           = multi || nodes > 1;
    multi_gpu       = multi_gpu || (std::min(log.ranks, t.gpus_per_node) > 1 && log.op != "sendrecv");
    sendrecv        = sendrecv || log.op == "sendrecv";
    all_reduce      = all_reduce || log.op == "all_reduce";
    reducing        = reducing || log.op == "all_reduce" || log.op == "all_gather" || log.op == "reduce_scatter";
    for (const auto& r : log.rows) {
      small      = small || r.bytes < (std::uint64_t{1} << 20);
      below_256m = below_256m || r.bytes < (std::uint64_t{256} << 20);
      below_1g   = below_1g || r.bytes < (std::uint64_t{1} << 30);
    }
    nvls_single = nvls_single || (t.nccl.nvls && sim::release_has(t.nccl.version, sim::Algo::NVLS) &&
                                  log.op == "all_reduce" && nodes == 1);
    nvls_multi  = nvls_multi || (t.nccl.nvls && sim::release_has(t.nccl.version, sim::Algo::NVLS_TREE) &&
                                 log.op == "all_reduce" && nodes > 1);
  }
  const double nic_line   = t.nic_nominal_bytes_per_s / t.bytes_per_s_per_gbps();
  const double intra_line = t.intra_nominal_bytes_per_s / GBPS;
  std::vector<Spec> s;
  auto efficiency = [&](const char* name, const char* pointer, double current, double hi, double weight,
                        double line_gbps, std::function<void(sim::Topology&, double)> apply) {
    Spec e;
    e.name = name, e.pointer = pointer, e.lo = 0.05, e.hi = hi;
    e.start = e.prior = std::clamp(current, e.lo, e.hi);
    e.prior_weight = weight, e.bandwidth = true, e.line_share = 1, e.line_gbps = line_gbps;
    e.apply = std::move(apply);
    s.push_back(std::move(e));
  };
  // NVLink packets carry at most ~94 % payload and SM copies lose more: a port's share is bounded at 0.95.
  // The NIC's prior: firm on InfiniBand, where NVIDIA states what NDR delivers ("46-48 GB/s per NIC", nccl-tests#290),
  // weak on other fabrics (RoCE, TCP, EFA), whose delivered share no comparable public figure pins.
  const double nic_weight = t.nic_kind == "infiniband" ? 0.1 : 0.03;
  if (multi)
    efficiency("nic_efficiency", "/nic/effective_gbps", t.nic_bytes_per_s / t.nic_nominal_bytes_per_s, 1.0, nic_weight,
               nic_line, [](sim::Topology& x, double v) { x.nic_bytes_per_s = v * x.nic_nominal_bytes_per_s; });
  if (multi_gpu)
    efficiency("nvlink_efficiency", "/intra_node/effective_gbps", t.intra_bytes_per_s / t.intra_nominal_bytes_per_s,
               0.95, 0.5, intra_line,
               [](sim::Topology& x, double v) { x.intra_bytes_per_s = v * x.intra_nominal_bytes_per_s; });
  if (sendrecv)
    efficiency("p2p_efficiency", "/nccl/p2p_gbps",
               t.nccl.p2p_bytes_per_s.value_or(t.intra_bytes_per_s) / t.intra_nominal_bytes_per_s, 0.95, 0.02,
               intra_line, [](sim::Topology& x, double v) { x.nccl.p2p_bytes_per_s = v * x.intra_nominal_bytes_per_s; });
  if (nvls_single || nvls_multi)
    efficiency("nvls_efficiency", "/nccl/nvls_gbps", t.nccl.nvls_bytes_per_s.value_or(0.58 * t.intra_nominal_bytes_per_s) /
                                                         t.intra_nominal_bytes_per_s,
               1.0, 0.3, intra_line, [](sim::Topology& x, double v) { x.nccl.nvls_bytes_per_s = v * x.intra_nominal_bytes_per_s; });
  auto linear = [&](std::string name, std::string pointer, double current, double lo, double hi,
                    std::function<void(sim::Topology&, double)> apply) {
    Spec e;
    e.name = std::move(name), e.pointer = std::move(pointer), e.lo = lo, e.hi = hi, e.log_scale = false;
    e.start = e.prior = std::clamp(current, lo, hi);
    e.apply = std::move(apply);
    s.push_back(std::move(e));
  };
  if (small) {
    if (multi)
      for (const auto p : sim::kProtocols)
        if (allows(t.nccl.protocols, p)) {
          const auto i = static_cast<std::size_t>(sim::proto_index(p));
          linear("net_extra_us." + sim::to_string(p), "/nccl/latency_us/net_extra/" + sim::to_string(p),
                 t.nccl.net_extra_s[i] / US, 0, 3000, [i](sim::Topology& x, double v) { x.nccl.net_extra_s[i] = v * US; });
        }
    Spec scale;
    scale.name = "intra_scale", scale.pointer = "/nccl/latency_us/intra_scale", scale.lo = 0.25, scale.hi = 4;
    scale.start = scale.prior = std::clamp(t.nccl.intra_latency_scale, scale.lo, scale.hi);
    scale.apply = [](sim::Topology& x, double v) { x.nccl.intra_latency_scale = v; };
    s.push_back(scale);
    linear("base_extra_us", "/nccl/latency_us/base_extra", t.nccl.base_extra_s / US, 0, 200,
           [](sim::Topology& x, double v) { x.nccl.base_extra_s = v * US; });
  }
  auto ceiling = [&](const char* key, std::size_t i, bool stage_a) {
    Spec c;
    c.name = std::string("ceiling_scale.") + key, c.pointer = std::string("/nccl/ceiling_scale/") + key;
    c.lo = 0.01, c.hi = 4, c.bandwidth = stage_a;
    c.start = c.prior = std::clamp(t.nccl.ceiling_scale[i], c.lo, c.hi);
    c.apply = [i](sim::Topology& x, double v) { x.nccl.ceiling_scale[i] = v; };
    s.push_back(c);
  };
  if (reducing && below_256m) {
    if (allows(t.nccl.protocols, sim::Proto::LL))
      ceiling("LL", 0, false);
    if (allows(t.nccl.protocols, sim::Proto::LL128))
      ceiling("LL128", 1, false);
  }
  const bool tree = all_reduce && allows(t.nccl.algorithms, sim::Algo::TREE);
  if (tree)
    ceiling("tree", 2, true);
  auto fill = [&](const char* key, double current, std::function<void(sim::Topology&, double)> apply) {
    Spec f;
    f.name = std::string("fill.") + key, f.pointer = std::string("/nccl/fill/") + key;
    f.lo = 0, f.hi = 16, f.log_scale = false;
    f.prior = current, f.start = std::max(current, 0.5), f.stage_a = true;
    f.apply = std::move(apply);
    s.push_back(std::move(f));
  };
  if (below_1g && tree)
    fill("tree", t.nccl.fill_tree, [](sim::Topology& x, double v) { x.nccl.fill_tree = v; });
  if (below_1g && nvls_multi && allows(t.nccl.algorithms, sim::Algo::NVLS_TREE))
    fill("nvls_tree", t.nccl.fill_nvls_tree, [](sim::Topology& x, double v) { x.nccl.fill_nvls_tree = v; });
  if (below_1g && nvls_single && allows(t.nccl.algorithms, sim::Algo::NVLS))
    fill("nvls", t.nccl.fill_nvls, [](sim::Topology& x, double v) { x.nccl.fill_nvls = v; });
  return s;
}

/// Issue 48: a NIC fitted below half its line rate. NICs deliver 80-97 % of it to NCCL (NDR: 46-48 of 50 GB/s,
/// nccl-tests#290); a fit far below usually means NCCL ran another algorithm than the model assumed (a tree fitted
/// to a log NCCL ran as rings moves S per node where the ring moved 2(n-1)/n S, or the reverse), or the topology's NIC
/// count or rate is not the cluster's.
std::string below_half_warning(double gbps, double line_gbps)
{
  return fmt::format("nic.effective_gbps: the fit gives {:.4g} Gbps per NIC, {:.0f} % of the line rate ({:g} Gbps), "
                     "below half of it: NICs deliver 80-97 % of their line rate. Did NCCL run the algorithm and "
                     "protocol the table shows (--algo / --proto as the log's NCCL_ALGO / NCCL_PROTO), and are the "
                     "topology's NIC count and rate the cluster's?",
                     gbps, 100 * gbps / line_gbps, line_gbps);
}

/// The warning for a constant the fit pushed to a bound, naming what usually causes it.
std::string at_bound_warning(const Spec& s, double v, const sim::Topology& t)
{
  if (s.name == "nic_efficiency")
    return fmt::format(
        "nic.effective_gbps: the fit wants the NICs at their line rate ({} x {:g} Gbps) and is held there: the "
        "measured times need more bandwidth than the algorithms NCCL was modelled to run can get from them. A 2-node "
        "tree moves S per node each way where a ring moves 2(n-1)/n S: was NCCL_ALGO forced (--algo), does a tuner "
        "plugin choose (--tuner-table), or are the topology's NIC count or rate wrong?",
        t.nic_count, s.line_gbps);
  if (s.line_share > 0)
    return fmt::format("{}: the fit wants {:.3g} of the line rate ({:g} Gbps), its bound, and is held there: the "
                       "measured times need more than the modelled traffic can get; is the intra-node line rate or the "
                       "algorithm (--algo) right?",
                       s.pointer, v, s.line_gbps);
  return fmt::format("{} = {:.4g} at its bound [{:g}, {:g}]", s.pointer, v, s.lo, s.hi);
}
} // namespace

std::vector<double> nccl_model_times(const sim::Topology& topo, const NcclLog& log)
{
  const auto* bench = algorithms::find_collective_bench(log.op);
  std::vector<double> out;
  for (const auto& r : log.rows) {
    const auto plan = bench_plan(topo, *bench, log.ranks, r.bytes);
    out.push_back(plan ? plan->seconds() : 0);
  }
  return out;
}

NcclFit fit_nccl_constants(const sim::Topology& topo, const std::vector<NcclLog>& logs)
{
  NcclFit result;
  result.topo      = topo;
  const auto specs = free_constants(topo, logs);
  std::vector<double> measured;
  std::vector<bool> fitted, big;
  for (const auto& log : logs)
    for (std::size_t i = 0; i < log.rows.size(); ++i) {
      measured.push_back(log.rows[i].time_us * US);
      fitted.push_back(!log.flagged[i]);
      big.push_back(!log.flagged[i] && log.rows[i].bytes >= (std::uint64_t{64} << 20));
    }
  if (specs.empty())
    return result;
  // The model's times of every row with `which` constants at `values` (the others at `base`'s values).
  auto times = [&](const sim::Topology& base, const std::vector<std::size_t>& which, const std::vector<double>& values) {
    auto t = base;
    for (std::size_t k = 0; k < which.size(); ++k)
      specs[which[k]].apply(t, values[k]);
    std::vector<double> out;
    for (const auto& log : logs)
      for (const double s : nccl_model_times(t, log))
        out.push_back(s);
    return out;
  };
  // Which link explains a log is not always decided by its rows (at 2 nodes NVLS-Tree's NIC and NVLS rates, a tree's
  // NIC and NVLink rates): from one start per bandwidth constant, that constant at its lower bound and the other
  // bandwidths at their upper bounds (so it alone binds and rises to what the rows need), the priors then settle which
  // explanation costs least.
  auto blame_starts = [&](const std::vector<std::size_t>& which) {
    std::vector<std::vector<double>> out;
    for (const auto k : which) {
      if (!specs[k].bandwidth)
        continue;
      std::vector<double> start;
      for (const auto j : which)
        start.push_back(j == k ? specs[j].lo : (specs[j].bandwidth ? specs[j].hi : specs[j].start));
      out.push_back(start);
    }
    return out;
  };
  auto bounded = [&](std::size_t k, double prior, double weight) {
    const auto& s = specs[k];
    return ConstantFit::Bounded{s.start, s.lo, s.hi, s.log_scale, prior, weight, s.prior_scale};
  };

  // Stage A: the bandwidths on the large sizes.
  std::vector<double> centre(specs.size()), weight(specs.size());
  for (std::size_t k = 0; k < specs.size(); ++k)
    centre[k] = specs[k].prior, weight[k] = specs[k].prior_weight;
  std::vector<std::size_t> bw; // stage A's constants
  for (std::size_t k = 0; k < specs.size(); ++k)
    if (specs[k].bandwidth || specs[k].stage_a)
      bw.push_back(k);
  if (std::count(big.begin(), big.end(), true) >= 2 && !bw.empty()) {
    ConstantFit a([&](const std::vector<double>& v) { return times(topo, bw, v); }, measured);
    std::vector<ConstantFit::Bounded> params;
    for (const auto k : bw)
      params.push_back(bounded(k, specs[k].prior, specs[k].prior_weight));
    const auto fa = a.fit_bounded(params, big, 0.15, 4, blame_starts(bw));
    for (std::size_t j = 0; j < bw.size(); ++j) {
      const auto k = bw[j];
      if (!specs[k].bandwidth)
        continue;
      // Does the prior's value fit the large sizes as well (1 % rms)? Then the logs do not pin this constant down.
      auto at_prior = fa.values;
      at_prior[j]   = specs[k].prior;
      const auto& p = a.predict(at_prior);
      double sum = 0;
      int rows   = 0;
      for (std::size_t i = 0; i < measured.size(); ++i)
        if (big[i] && p[i] > 0) {
          sum += std::pow(std::log(p[i] / measured[i]), 2);
          ++rows;
        }
      const double rms = rows > 0 ? std::sqrt(sum / rows) : 0;
      const bool seen = rms - fa.rows_rms > 0.01;
      if (!seen)
        result.notes.push_back(fmt::format("{}: the sizes of 64 MiB and more fit the topology's value ({:.4g} of the "
                                           "line rate) within {:+.2f} % rms of their best ({:.4g}): they do not pin it "
                                           "down, so it stays at the topology's value",
                                           specs[k].pointer, specs[k].prior, 100 * (rms - fa.rows_rms), fa.values[j]));
      centre[k] = seen ? fa.values[j] : specs[k].prior;
      weight[k] = 1.0;
    }
  }
  // Stage B: everything on every row.
  std::vector<std::size_t> all(specs.size());
  for (std::size_t k = 0; k < specs.size(); ++k)
    all[k] = k;
  ConstantFit b([&](const std::vector<double>& v) { return times(topo, all, v); }, measured);
  std::vector<ConstantFit::Bounded> params;
  for (std::size_t k = 0; k < specs.size(); ++k) {
    auto p = bounded(k, centre[k], weight[k]);
    if (weight[k] >= 1)
      p.start = centre[k];
    params.push_back(p);
  }
  auto starts_b = blame_starts(all);
  for (auto& start : starts_b) // stage A's values where it found them
    for (std::size_t k = 0; k < specs.size(); ++k)
      if (weight[k] >= 1 && start[k] != specs[k].hi && start[k] != specs[k].lo)
        start[k] = centre[k];
  const auto fb = b.fit_bounded(params, fitted, 0.15, 12, starts_b);
  for (std::size_t k = 0; k < specs.size(); ++k) {
    const auto& s  = specs[k];
    const double v = fb.values[k];
    specs[k].apply(result.topo, v);
    const double unit = s.line_share > 0 ? s.line_gbps : 1; // efficiencies are written as Gbps
    result.constants.push_back({s.name, s.pointer, s.prior * unit, v * unit, s.lo * unit, s.hi * unit});
    const double span = s.hi - s.lo;
    if (v >= s.hi - 0.01 * (s.line_share > 0 ? s.hi : span) && s.hi > s.lo)
      result.warnings.push_back(at_bound_warning(s, v, topo));
    else if (!s.log_scale && s.lo > 0 && v <= s.lo + 1e-9)
      result.warnings.push_back(at_bound_warning(s, v, topo));
    else if (s.name == "nic_efficiency" && v < 0.5)
      result.warnings.push_back(below_half_warning(v * s.line_gbps, s.line_gbps));
  }
  return result;
}

void write_nccl_constants(nlohmann::json& doc, const NcclFit& fit)
{
  for (const auto& c : fit.constants) {
    const nlohmann::json::json_pointer at(c.pointer);
    doc[at] = c.after;
    // Every object the constant sits in under "nccl" is named by its parent's source note (the presets' rule: every
    // number has a source), pointing at the one note that says how it was fitted.
    for (auto child = at.parent_pointer(); child.parent_pointer() != nlohmann::json::json_pointer("");
         child = child.parent_pointer()) {
      auto& parent     = doc[child.parent_pointer()];
      const auto key   = "source_" + child.back();
      if (!parent.contains(key))
        parent[key] = "fitted by ccsim calibrate --nccl-tests: see nccl.source_calibration";
    }
  }
}

} // namespace ccsim::api
