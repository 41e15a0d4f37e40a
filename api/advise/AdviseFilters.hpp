#pragma once
// `advise --algorithms / --tp / --pp`: the filters that restrict its candidates, checked against the cluster and the
// model so that a value that can never apply is a one-line error naming the flag, not an empty ranking.

#include "sim/platform/Topology.hpp"
#include "sim/model/Workload.hpp"

#include <string>
#include <vector>

namespace ccsim::api {

/// The algorithms advise ranks for a workload: every plan algorithm of its family (the pipeline algorithms for a model
/// pipelined without tensor parallelism, the others otherwise), or only `only` (each must be such an algorithm;
/// unknown names, duplicates and the other family's are errors on --algorithms). In the registry's order.
std::vector<std::string> advised_algorithms(const std::vector<std::string>& only, bool pipelined,
                                            const std::string& workload);

/// Checks --tp and --pp values: tp divides the GPUs per node of `topology` (tensor parallelism stays within a node)
/// and the model's heads, pp divides its layers (whole layers per stage; from an architecture also layers + 2,
/// sim::chunks_are_whole), each divides the GPUs, and no value twice.
void check_split_filters(const std::vector<int>& tp, const std::vector<int>& pp, const sim::Topology& topo,
                         const sim::Workload& work, int gpus, const std::string& topology);

} // namespace ccsim::api
