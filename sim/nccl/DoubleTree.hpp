#pragma once
// NCCL's double binary tree over the nodes of a communicator (graph/trees.cc ncclGetDtree): the first tree is an
// in-order binary tree rooted at node 0 whose leaves alternate with its inner nodes, the second is the first mirrored
// (node r -> n-1-r) when n is even or shifted by one node when n is odd, so that a node inner in one tree is a leaf in
// the other. Each tree carries half of the buffer, up (reduce) and down (broadcast) every edge.
//
//   n = 8:  tree 0    0 - 4 - 2 - 1, 2 - 3, 4 - 6 - 5, 6 - 7     tree 1: the same with r -> 7 - r
//
// A node's NIC then carries (edges at it in both trees) x S/2 each way: S at 2 nodes, up to 2S from 3 nodes on, which
// is why a 2-node tree all-reduce reports a bus bandwidth above the NICs' line rate and a 4-node one does not.

#include <array>
#include <utility>
#include <vector>

namespace ccsim::sim {

using TreeEdges = std::vector<std::pair<int, int>>; // (parent, child)

/// The two trees' edges over nodes 0..n-1 (empty for n < 2).
std::array<TreeEdges, 2> double_binary_tree(int n);

/// Edges at each node, both trees together.
std::vector<int> tree_degrees(int n);

/// The most edges any node has, both trees together (its NIC carries that x S/2 each way); 0 for one node.
int max_tree_degree(int n);

} // namespace ccsim::sim
