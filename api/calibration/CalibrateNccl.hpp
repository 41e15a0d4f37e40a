#pragma once
// `ccsim calibrate --nccl-tests FILE...`: fits a topology's collective constants to nccl-tests logs measured on the
// real cluster (verbatim logs: api/calibration/NcclTestsText.hpp), writes the topology with the fitted values and a
// source note naming the logs, and replays every log in ccsim to show what the fit reproduces.
//
// On a topology whose collectives take NCCL's latencies (an "nccl" block, latency_model "nccl"), the NCCL model's
// physical constants (api/calibration/NcclFit.hpp), each within its link's line rate: a fit that would need more is
// held at the line rate and warned about, naming the likely cause; the hardware is never changed. Where the links'
// latencies time them (no "nccl" block, or latency_model "links"), the two constants of those alpha-beta
// collectives, the delivered NIC bandwidth and the NIC latency (Gauss-Newton on a simulated replay,
// api/calibration/ConstantFit.hpp), the bandwidth likewise held at the NIC's nominal rate.

#include "api/calibration/NcclFit.hpp"
#include "sim/collective/Collectives.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ccsim::api {

struct NcclCalibrationRequest {
  std::string topology;               // preset name or path to start from
  std::vector<std::string> files;     // nccl-tests (or ccsim collective) texts of the same cluster
  std::optional<std::string> op;      // --op, when a file does not name its collective
  std::optional<int> ranks;           // --ranks, when a file does not say
  std::optional<std::string> algo;    // NCCL_ALGO the logs ran with (--algo; else what the logs state, if they do)
  std::optional<std::string> proto;   // NCCL_PROTO (--proto; likewise)
  std::optional<std::string> tuner_table; // a tuner plugin's table (JSON file {"tuner_table": [...]}), kept in the output
  sim::Fidelity fidelity = sim::Fidelity::FAST;
  std::string out;                    // where the calibrated topology goes (unused without fitting)
  bool fit = true;                    // false (--no-fit): replay the logs on the topology as it is, write nothing
};

/// One row of a log: measured, replayed by simulation, what ran.
struct NcclCalibrationRow {
  std::string file;
  std::uint64_t size = 0;
  double measured_us = 0, predicted_us = 0, model_us = 0;
  double measured_busbw = 0, predicted_busbw = 0; // GB/s, nccl-tests' bus bandwidth
  std::string algorithm, protocol, bottleneck;
  bool flagged = false; // out-of-place > 1.5 x in-place: a bad measurement, not fitted
  double error() const { return predicted_us / measured_us - 1; }
};

/// What a log said about itself and what was read from it.
struct NcclLogInfo {
  std::string file, op, op_from, ranks_from;
  int ranks = 0;
  std::optional<int> nodes;
  std::optional<std::string> nccl_version;
  std::optional<std::string> nccl_algo, nccl_proto; // as the log states them (NCCL_DEBUG=INFO), verbatim
};

struct NcclCalibration {
  bool fitted     = true;            // false: the logs replayed on the topology as given (--no-fit), nothing written
  bool nccl_model = false;           // the NCCL model's constants (false: the links' NIC bandwidth and latency)
  std::vector<NcclLogInfo> logs;
  /// NCCL_ALGO / NCCL_PROTO the fit forced, and where each came from ("--algo", "the log"; empty: NCCL's choice).
  std::optional<std::string> algo, proto;
  std::string algo_from, proto_from;
  std::vector<FittedNcclConstant> constants;
  double gbps = 0, latency_us = 0;   // without an nccl block: the fitted nic.effective_gbps and nic.latency_us
  std::vector<NcclCalibrationRow> rows;
  double median_abs_error = 0, worst_abs_error = 0; // |predicted / measured - 1| over the rows not flagged
  double rms_relative_error = 0;                    // over every row
  std::vector<std::string> warnings, notes;
};

/// Fits, writes `out` and returns the fit; with `fit` false, only replays the logs on the topology as it is (how well
/// a calibration, or a preset, predicts other logs of the cluster: more nodes, another size range) and writes
/// nothing. Bad input throws io::InputError naming the flag or file.
NcclCalibration calibrate_nccl(const NcclCalibrationRequest& request);

/// `calibrate --nccl-tests --format json`'s document: the logs read, the fitted constants (the NCCL model's, or the
/// links' effective_gbps and latency_us), warnings, the fit's errors and every size's measured and replayed time,
/// busbw and algorithm; `out` is the topology written (null and "fitted": false without fitting).
nlohmann::json to_json(const NcclCalibration& fit, const std::string& out);

} // namespace ccsim::api
