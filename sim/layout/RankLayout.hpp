#pragma once
// Where each rank sits in (pipeline stage, data-parallel replica, tensor-parallel slice), Megatron's order:
// rank = pp_index·(dp·tp) + dp_index·tp + tp_index, so tensor-parallel peers are neighbours on one node.
// Expert parallelism splits each data-parallel group into groups of ep consecutive replicas (Megatron-Core's
// expert-model-parallel groups, a subdivision of data parallelism): within a node when ep·tp <= gpus per node.

#include "sim/layout/Round.hpp"
#include "sim/model/CommPlan.hpp"

#include <vector>

namespace ccsim::sim {

struct RankLayout {
  int dp = 1, tp = 1, pp = 1;
  int gpus_per_node = 1;
  int ep = 1; // expert-parallel degree, dividing dp

  int gpus() const { return dp * tp * pp; }
  int rank(int pp_index, int dp_index, int tp_index) const { return pp_index * dp * tp + dp_index * tp + tp_index; }
  /// Every group of this kind (all of them run a collective at once).
  std::vector<Group> groups(GroupKind kind) const;
  /// Data-parallel peers of one node that share a node (the ranks TLq's intra-node stage talks to).
  int dp_per_node() const;
};

} // namespace ccsim::sim
