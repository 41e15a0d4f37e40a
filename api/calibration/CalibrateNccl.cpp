// calibrate --nccl-tests; see CalibrateNccl.hpp.
#include "api/calibration/CalibrateNccl.hpp"

#include "api/calibration/CalibratedTopology.hpp"
#include "api/calibration/ConstantFit.hpp"
#include "api/calibration/NcclTestsText.hpp"
#include "api/run/CollectiveSweep.hpp"
#include "algorithms/CollectiveOps.hpp"
#include "sim/Topology.hpp"
#include "sim/io/JsonInput.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace ccsim::api {

namespace {
/// `topo` with the NIC delivering `gbps` (raising the nominal rate with it when the fit exceeds it) and `latency_us`.
sim::Topology with_nic(sim::Topology topo, double gbps, double latency_us)
{
  topo.nic_bytes_per_s         = gbps * topo.bytes_per_s_per_gbps();
  topo.nic_nominal_bytes_per_s = std::max(topo.nic_nominal_bytes_per_s, topo.nic_bytes_per_s);
  topo.nic_latency_s           = latency_us * 1e-6;
  return topo;
}
} // namespace

NcclCalibration calibrate_nccl(const NcclCalibrationRequest& req)
{
  const std::string topo_path = io::resolve_preset("topologies", req.topology, "--topology");
  const sim::Topology topo    = sim::load_topology(topo_path);
  const std::string& file     = req.file;
  const auto table            = read_nccl_tests(file);

  const std::string op = req.op.value_or(table.op.value_or(""));
  if (op.empty())
    throw io::InputError(file, "", "does not name its collective: pass --op (all_reduce, all_gather, ...)");
  const auto* bench = algorithms::find_collective_bench(op);
  if (bench == nullptr)
    throw io::InputError(req.op ? "--op" : file, "", io::echo(op) + " is not a collective ccsim knows");
  const int ranks = req.ranks.value_or(table.ranks.value_or(0));
  if (ranks == 0)
    throw io::InputError(file, "", "does not say how many ranks ran: pass --ranks N");
  if (ranks > topo.max_gpus())
    throw io::InputError(req.ranks ? "--ranks" : file, "",
                         fmt::format("{} ranks but topology {} has {} GPUs", ranks, topo.name, topo.max_gpus()));

  NcclCalibration c;
  c.op    = bench->name;
  c.ranks = ranks;
  for (const auto& r : table.rows) {
    c.sizes.push_back(r.bytes);
    c.measured_s.push_back(r.time_us * 1e-6);
  }
  if (c.sizes.size() < 2)
    throw io::InputError(file, "", "needs at least two sizes (one latency-bound, one bandwidth-bound)");

  // The constants as the fit moves them: u = 1 / Gbps (the simulated time is affine in it) and the latency in us.
  ConstantFit engine(
      [&](const std::vector<double>& x) {
        return simulate_sweep(with_nic(topo, 1 / x[0], x[1]), *bench, ranks, c.sizes, req.fidelity, false).seconds;
      },
      c.measured_s);
  using P        = ConstantFit::Parameter;
  const auto fit = engine.gauss_newton({P{topo.bytes_per_s_per_gbps() / topo.nic_bytes_per_s, P::Bound::POSITIVE, 0, 0},
                                        P{topo.nic_latency_s * 1e6, P::Bound::NON_NEGATIVE, 0.01, 1e-3}});
  if (!fit)
    throw io::InputError("--nccl-tests", "",
                         "these measurements do not pin down both the NIC bandwidth and latency (one of them, or "
                         "the inter-node NIC itself, does not change the simulated times): give sizes from a few KB "
                         "to hundreds of MB over ranks on several nodes");
  c.gbps        = 1 / (*fit)[0];
  c.latency_us  = (*fit)[1];
  c.predicted_s = engine.predict(*fit);
  io::check_range(c.gbps, io::range::kLinkGbps, false, "fitted nic.effective_gbps");
  io::check_range(c.latency_us, io::range::kLatencyUs, false, "fitted nic.latency_us");

  double sum_sq = 0;
  for (std::size_t i = 0; i < c.sizes.size(); ++i) {
    const double e         = (c.predicted_s[i] - c.measured_s[i]) / c.measured_s[i];
    c.worst_relative_error = std::max(c.worst_relative_error, std::abs(e));
    sum_sq += e * e;
  }
  c.rms_relative_error = std::sqrt(sum_sq / static_cast<double>(c.sizes.size()));

  // The new topology: the base file with the two NIC constants replaced and a note saying where they came from.
  auto doc             = io::read_json_file(topo_path);
  auto& nic            = doc["nic"];
  const double nominal = nic["bandwidth_gbps"].get<double>();
  nic["effective_gbps"] = c.gbps;
  if (c.gbps > nominal)
    nic["bandwidth_gbps"] = c.gbps; // the measurement beats the label: the label was wrong
  nic["latency_us"]         = c.latency_us;
  nic["source_calibration"] = fmt::format(
      "ccsim calibrate: effective_gbps and latency_us fitted to {} ({} over {} ranks, {} sizes {}..{} B, {} fidelity "
      "replay): rms relative error {:.3g}, worst {:.3g}",
      io::printable(file, 200), bench->name, ranks, c.sizes.size(), c.sizes.front(), c.sizes.back(),
      req.fidelity == sim::Fidelity::EXACT ? "exact" : "fast", c.rms_relative_error, c.worst_relative_error);
  write_calibrated_topology(doc, req.out);
  return c;
}

nlohmann::json to_json(const NcclCalibration& c, const std::string& out)
{
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t i = 0; i < c.sizes.size(); ++i)
    rows.push_back({{"size", c.sizes[i]}, {"measured_us", c.measured_s[i] * 1e6}, {"fitted_us", c.predicted_s[i] * 1e6}});
  return {{"topology", out},
          {"op", c.op},
          {"ranks", c.ranks},
          {"effective_gbps", c.gbps},
          {"latency_us", c.latency_us},
          {"rms_relative_error", c.rms_relative_error},
          {"worst_relative_error", c.worst_relative_error},
          {"rows", rows}};
}

} // namespace ccsim::api
