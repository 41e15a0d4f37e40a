#pragma once
// Where each rank sits in (pipeline stage, data-parallel replica, context-parallel slice, tensor-parallel slice),
// Megatron-Core's order tp-cp-dp-pp (tp fastest): rank = pp_index·(dp·cp·tp) + (dp_index·cp + cp_index)·tp +
// tp_index, so tensor-parallel peers are neighbours on one node and the cp ranks of one sequence come next.
// A "replica" below is one (dp_index, cp_index) pair, replica = dp_index·cp + cp_index: the dp x cp replicas of a
// (tp, pp) coordinate are the gradient-reduction group (Megatron-Core reduces over data and context parallelism).
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
  int cp = 1; // context-parallel degree

  /// The (dp_index, cp_index) pairs of one (tp, pp) coordinate: dp x cp.
  int replicas() const { return dp * cp; }
  int gpus() const { return replicas() * tp * pp; }
  /// The rank of `replica` (dp_index·cp + cp_index) at a pipeline stage and tensor-parallel slice.
  int rank(int pp_index, int replica, int tp_index) const
  {
    return pp_index * replicas() * tp + replica * tp + tp_index;
  }
  /// Every group of this kind (all of them run a collective at once).
  std::vector<Group> groups(GroupKind kind) const;
  /// Data-parallel peers of one node that share a node (the ranks TLq's intra-node stage talks to).
  int dp_per_node() const;
};

} // namespace ccsim::sim
