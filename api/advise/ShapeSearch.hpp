#pragma once
// `advise --search`: the data/tensor/pipeline-parallel splits and micro-batches worth simulating for one algorithm,
// as a Megatron user would choose them by hand. The global batch stays fixed: the convergence evidence that ranks
// the algorithms was measured at a fixed batch, and only the split of that batch over the GPUs is searched.

#include "sim/platform/Topology.hpp"
#include "sim/model/Workload.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace ccsim::api {

struct ShapeCandidate {
  int tp = 1;
  int pp = 1;
  std::uint64_t micro_batch = 1;
};

/// The splits of `gpus` GPUs for a step of `global_batch` samples:
/// - tp a power of two within one node (Megatron keeps tensor parallelism on NVLink) that divides the heads;
/// - pp a divisor of the layers (whole layers per stage), or from an architecture of the layers + 2
///   (sim::chunks_are_whole), >= 2 for a pipeline algorithm, with tp x pp dividing gpus;
/// - micro-batches that are powers of two (plus the workload's default) dividing global_batch / dp, at most
///   `max_micro_batch`. Where the workload has measured compute profiles for the topology's GPU, only the profiled
///   micro-batches and tp degrees are kept: the papers' tables give no basis to interpolate, and mixing measured with
///   FLOPs-model rows would rank the model's bias, not the configurations.
std::vector<ShapeCandidate> search_candidates(const sim::Topology& topo, const sim::Workload& work, int gpus,
                                              std::uint64_t global_batch, bool pipeline_algorithm,
                                              std::uint64_t max_micro_batch = 64);

} // namespace ccsim::api
