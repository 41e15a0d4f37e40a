#pragma once
// The flows of NCCL's algorithms, so that the network sees what NCCL puts on it and concurrent collectives contend:
//
//   ring       each rank sends to the next in the group's order (node by node), the protocol's wire bytes;
//   tree       inside a node, both directions between neighbours (NCCL's chains, one per channel, rotated so every
//              GPU heads one: each GPU sends 2(g-1)/g S over NVLink); across nodes, NCCL's double binary tree
//              (sim/nccl/DoubleTree.hpp), S/2 per tree up and down every edge, spread over the rails (GPU j to GPU j);
//   nvls       each GPU's port carries what the switch reduction moves at the NVLS rate (a flow to its neighbour of
//              S x port rate / NVLS rate bytes); NVLS-Tree adds the tree's flows between nodes;
//   p2p        send/recv: rank r to r+1; all-to-all: every pair inside a node, and between two nodes one flow per
//              rail (GPU j to GPU j) carrying what PXN forwards to that rail's peers.
//
// In ccsim's platform a GPU's inter-node flows cross its port; NCCL's go from the GPU to its NIC over PCIe. The
// intra-node flows of tree and NVLS-Tree therefore carry that much less (sim/nccl/NcclModel.hpp tree_intra_share), so a
// port's total is the NVLink traffic NCCL puts on it. sim/nccl/NcclModel.cpp's bandwidth terms are these flows' loads.
//
// FAST: one round carrying all bytes, with the collective's latency and fill as Round::latency_s. EXACT: a ring's
// 2(n-1) (or n-1) steps, a tree's or NVLS's pipeline steps (one chunk of 512 KiB per channel each, at most 64), as
// rounds of messages, each with its share of the latency.

#include "sim/layout/Round.hpp"
#include "sim/nccl/NcclModel.hpp"

#include <cstdint>
#include <vector>

namespace ccsim::sim {

/// Appends the rounds of `plan` on `group` to `out` (round k of every group goes into out[k]).
void add_nccl_rounds(std::vector<Round>& out, const CollectivePlan& plan, Collective collective, const Group& group,
                     std::uint64_t bytes, Fidelity fidelity, const Topology& topo);

} // namespace ccsim::sim
