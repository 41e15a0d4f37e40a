// The double binary tree; see DoubleTree.hpp.
#include "sim/nccl/DoubleTree.hpp"

#include <algorithm>

namespace ccsim::sim {

namespace {
/// The parent of node r > 0 in the in-order binary tree rooted at 0 over n nodes. With b the lowest set bit of r, r's
/// parent is r with b cleared and the next bit up set (the inner node above it) or, when that is past the last node,
/// r with b cleared (graph/trees.cc's comment draws it: 1 -> 2, 3 -> 2, 2 -> 4, 6 -> 4, 12 -> 8 at n = 14, 13 -> 12).
int parent_of(int r, int n)
{
  const int b  = r & -r;
  const int up = (r - b) | (b << 1);
  return up < n ? up : r - b;
}
} // namespace

std::array<TreeEdges, 2> double_binary_tree(int n)
{
  std::array<TreeEdges, 2> trees;
  for (int r = 1; r < n; ++r)
    trees[0].emplace_back(parent_of(r, n), r);
  // The second tree: mirrored for an even count, shifted by one node for an odd count.
  const auto map = [n](int r) { return n % 2 == 0 ? n - 1 - r : (r + 1) % n; };
  for (const auto& [p, c] : trees[0])
    trees[1].emplace_back(map(p), map(c));
  return trees;
}

std::vector<int> tree_degrees(int n)
{
  std::vector<int> degree(static_cast<std::size_t>(std::max(n, 0)), 0);
  for (const auto& tree : double_binary_tree(n))
    for (const auto& [p, c] : tree) {
      ++degree[static_cast<std::size_t>(p)];
      ++degree[static_cast<std::size_t>(c)];
    }
  return degree;
}

int max_tree_degree(int n)
{
  const auto d = tree_degrees(n);
  return d.empty() ? 0 : *std::max_element(d.begin(), d.end());
}

} // namespace ccsim::sim
