#pragma once
// `ccsim calibrate --nccl-tests FILE`: fits a topology's inter-node constants — the delivered NIC bandwidth
// (`nic.effective_gbps`) and the one-way NIC latency (`nic.latency_us`) — to a collective measured on the real cluster
// (nccl-tests' text table, or `ccsim collective`'s), and writes the topology with the fitted values and a source note
// naming the file.
//
// The fit replays the measured collective in ccsim itself (same ring / hierarchical schedule, same fidelity) and moves
// the two constants by Gauss-Newton on the relative error of every row (api/calibration/ConstantFit.hpp), so small
// sizes (latency-bound) weigh as much as large ones (bandwidth-bound). On an alpha-beta (rdma) topology the simulated
// time is affine in 1/bandwidth and in latency, so one step lands on the answer and the rest confirm it.

#include "sim/Collectives.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ccsim::api {

struct NcclCalibrationRequest {
  std::string topology;            // preset name or path to start from
  std::string file;                // the nccl-tests (or ccsim collective) text
  std::optional<std::string> op;   // --op, when the file does not name its collective
  std::optional<int> ranks;        // --ranks, when the file does not say
  sim::Fidelity fidelity = sim::Fidelity::FAST;
  std::string out;                 // where the calibrated topology goes
};

struct NcclCalibration {
  std::string op; // the collective's name as ccsim knows it
  int ranks = 0;
  double gbps       = 0; // fitted nic.effective_gbps, in the topology's own unit
  double latency_us = 0; // fitted nic.latency_us
  std::vector<std::uint64_t> sizes;
  std::vector<double> measured_s, predicted_s;
  double rms_relative_error = 0, worst_relative_error = 0;
};

/// Fits, writes `out` and returns the fit. Bad input throws io::InputError naming the flag or file.
NcclCalibration calibrate_nccl(const NcclCalibrationRequest& request);

/// `calibrate --nccl-tests --format json`'s document: the fitted constants, the fit's errors and every size's
/// measured and fitted time; `out` is the topology written.
nlohmann::json to_json(const NcclCalibration& fit, const std::string& out);

} // namespace ccsim::api
