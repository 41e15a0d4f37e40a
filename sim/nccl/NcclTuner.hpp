#pragma once
// NCCL's own cost model, emulated: the time NCCL's tuner believes an algorithm and protocol take (graph/tuning.cc
// ncclTopoTuneModel, :243-438, and ncclTopoGetAlgoTime, :630-655), from NCCL's published constants
// (sim/nccl/NcclConstants.hpp) and the emulated graph (sim/nccl/NcclGraph.hpp) only — never from calibrated constants. NCCL
// picks the smallest of these estimates, and which one it picked is what a log shows; how long the pick then takes is
// the physical model's business (sim/nccl/NcclModel.hpp). A calibrated model that chose by its own times would learn wrong
// constants from what NCCL did not run.

#include "sim/platform/NcclConfig.hpp"
#include "sim/nccl/NcclGraph.hpp"

#include <cstdint>
#include <optional>

namespace ccsim::sim {

struct TunerInputs {
  Collective collective = Collective::ALL_REDUCE;
  int ranks    = 1;
  int nodes    = 1;
  GpuArch arch = GpuArch::HOPPER;
  CpuVendor cpu = CpuVendor::INTEL;
  bool pcie    = false;
  /// The release whose tuner decides (the topology's nccl.version): 2.7.x has its own model (NcclTunerV27.cpp);
  /// none or any other release: the current one.
  std::optional<NcclVersion> version;
};

/// NCCL's estimate in seconds, or nothing where NCCL would not consider the pair (a bandwidth of 0).
std::optional<double> nccl_estimate_s(const TunerInputs& in, const NcclGraphs& graphs, Algo algo, Proto proto,
                                      std::uint64_t bytes);

/// tuning.cc's log2i: floor(log2(x)), 0 below 1 (so 0 for log2i(0)). Shared by the tuners and the NCCL model.
int log2_floor(double x);

/// Whether `version` is a 2.7 release, whose own tuner (nccl_estimate_v27_s) decides; no version: no.
bool runs_v27_tuner(const std::optional<NcclVersion>& version);

/// The same estimate by NCCL 2.7.x's tuner (src/graph/tuning.cc at v2.7.8-1), which nccl_estimate_s uses for those
/// releases.
std::optional<double> nccl_estimate_v27_s(const TunerInputs& in, const NcclGraphs& graphs, Algo algo, Proto proto,
                                          std::uint64_t bytes);

} // namespace ccsim::sim
