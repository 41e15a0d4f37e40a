#pragma once
// The fit behind `ccsim calibrate --nccl-tests` on a topology with an "nccl" block: the collective model's physical
// constants (sim/nccl/NcclModel.hpp) from one or more nccl-tests logs of the same cluster, within each link's line rate.
//
// Only what the logs can see is free: the NICs' delivered share (multi-node logs), the NVLink port's (several GPUs per
// node), send/recv's (sendrecv logs), NVLS's (all-reduce on an NVLS cluster); the per-protocol network latency
// extras (multi-node, sizes below 1 MiB), NCCL's intra-node latency scale and a per-collective extra (sizes below
// 1 MiB); the protocol kernels' ceilings (sizes below 256 MiB, the protocol allowed) and the tree's; the pipeline fill
// of tree, NVLS-Tree or NVLS (sizes below 1 GiB). Hardware (GPUs, NICs, line rates) is never fitted.
//
// Two stages, so that the latency regime cannot bend the bandwidths that carry to other node counts: A fits the
// bandwidths on the sizes of 64 MiB and more; B fits everything on every row, A's bandwidths held by a strong prior.
// Every constant has a weak prior at the topology's value (the NIC's and NVLink's firmer), so one a log cannot see
// stays put (and is named as resting on its prior). Rows whose out-of-place time is over 1.5 x their in-place time are
// single bad measurements (a first call): reported, not fitted. The model's own times are fitted (sim/nccl/NcclModel.cpp:
// the simulation of an idle cluster takes exactly those), so a fit costs milliseconds per trial, not a simulation.

#include "api/calibration/NcclTestsText.hpp"
#include "sim/platform/Topology.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ccsim::api {

/// One measured log, as the fit reads it.
struct NcclLog {
  std::string file;
  std::string op; // ccsim's name of the collective (algorithms/CollectiveOps.hpp)
  int ranks = 0;
  std::vector<NcclTestsRow> rows;
  std::vector<bool> flagged; // out-of-place > 1.5 x in-place: not fitted
};

struct FittedNcclConstant {
  std::string name;    // "nic_efficiency", "net_extra_us.Simple", ...
  std::string pointer; // where the topology keeps it
  double before = 0, after = 0, lo = 0, hi = 0;
};

struct NcclFit {
  sim::Topology topo; // the base topology with the fitted constants
  std::vector<FittedNcclConstant> constants;
  std::vector<std::string> warnings; // a constant at a line rate or a bound, with the likely cause
  std::vector<std::string> notes;    // constants the logs do not pin down (resting on their prior)
};

/// Fits `topo`'s collective constants to `logs`. `topo` must have an "nccl" block.
NcclFit fit_nccl_constants(const sim::Topology& topo, const std::vector<NcclLog>& logs);

/// The model's time (seconds) of each row of `log` on `topo`.
std::vector<double> nccl_model_times(const sim::Topology& topo, const NcclLog& log);

/// Writes the fitted constants into the topology document `doc`, each where `pointer` says, in its file's units.
void write_nccl_constants(nlohmann::json& doc, const NcclFit& fit);

} // namespace ccsim::api
