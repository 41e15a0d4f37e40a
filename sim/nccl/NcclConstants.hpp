#pragma once
// NCCL's published tuning constants, as numbers with where they are (NVIDIA/nccl at commit 5067397c, "NCCL@5067397c",
// file:line). The logs ccsim is calibrated on ran NCCL 2.16 to 2.26, whose tuner has the same structure; a few
// constants moved between versions, which the calibrated extras absorb. No NCCL code is copied: the tables are data,
// and sim/nccl/NcclTuner.cpp and sim/nccl/NcclModel.cpp are ccsim's own models built on them.
//
// Units as NCCL states them: latencies in microseconds, bandwidths in GB/s (1e9 bytes/s) of NCCL "bus" data. Rows
// indexed [LL, LL128, Simple]; arch rows [Volta, Ampere, Hopper, Blackwell]; node columns [1 node, 2, 4 and more].

#include <array>

namespace ccsim::sim::nccl_constants {

using Row3 = std::array<double, 3>;
using Arch4 = std::array<Row3, 4>;

// tuning.cc:149-155 baseLatencies, per algorithm [LL, LL128, Simple]: ring and tree; NVLS and NVLS-Tree have none.
inline constexpr Row3 kBaseLatencyTree = {6.8, 14.0, 8.4};
inline constexpr Row3 kBaseLatencyRing = {6.6, 14.0, 8.4};
// tuning.cc:156-176 hwLatencies: per hop, [NVLINK | PCI | NET] x algorithm x [LL, LL128, Simple].
inline constexpr Row3 kNvlinkTree = {0.6, 1.25, 4.0};
inline constexpr Row3 kNvlinkRing = {0.6, 1.9, 3.4};
inline constexpr Row3 kNvlinkNvls = {0, 0, 25};   // NVLS and NVLS-Tree alike
inline constexpr Row3 kPciTree    = {1.0, 1.9, 4.0};
inline constexpr Row3 kPciRing    = {1.0, 2.5, 5.7};
inline constexpr Row3 kNetTree    = {5.0, 8.5, 14};
inline constexpr Row3 kNetRing    = {2.7, 4.0, 14.0};
inline constexpr Row3 kNetNvls    = {0, 0, 18};
inline constexpr Row3 kNetNvlsTree = {0, 0, 20.9};
// tuning.cc:177-183 llMaxBws [row][N1, N2, N4+]: one node reads the row of the GPU generation, several nodes row 0
// (Intel CPUs) or row 1 (AMD) (tuning.cc:267-271).
inline constexpr Arch4 kLlMaxBw = {{{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {282.0, 90.0, 70.0}}};
// tuning.cc:184-211 per-channel ceilings [arch][N1, N2, N4+].
inline constexpr Arch4 kRingLl128ChannelBw = {{{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}, {40.0, 40.0, 40.0}}};
inline constexpr Arch4 kTreeLl128ChannelBw = {{{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}}};
inline constexpr Arch4 kTreeChannelBw      = {{{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}}};
inline constexpr Arch4 kNvlsTreeChannelBw  = {{{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0.0, 96.0, 80.0}}};
// tuning.cc:139-144 nvlsEfficiency per arch.
inline constexpr std::array<double, 4> kNvlsEfficiency = {0.0, 0.0, 0.85, 0.74};
// tuning.cc:623-627 treeCorrectionFactor [proto][log2(bytes / 64)], 64 B .. 256 MiB; applied at tuning.cc:639-646.
inline constexpr std::array<std::array<double, 24>, 3> kTreeCorrection = {{
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9},
}};
// tuning.cc:228-233 network post overhead per step (us): Intel 1, AMD 2; x3 for Simple (tuning.cc:405-409).
inline constexpr double kNetOverheadIntel = 1.0;
inline constexpr double kNetOverheadAmd   = 2.0;
// tuning.cc:647-650 ring Simple plateau: multi-node all-reduce latency x1.4 (Ampere and later; x1.9 before).
inline constexpr double kRingPlateauVolta = 1.9;
inline constexpr double kRingPlateau      = 1.4;
// graph/topo.h:19-25 NVLink bandwidth per link as NCCL's graph search counts it, GB/s: SM70, SM80, SM90, SM100;
// PCI_BW (Gen3 x16).
inline constexpr std::array<double, 4> kNvlinkLinkBw = {20.0, 20.0, 20.6, 40.1};
inline constexpr double kPciBw = 12.0;
// graph/search.cc:1051-1067 the per-channel bandwidths NCCL's graph search tries, GB/s (SM90 and SM100 have their own).
inline constexpr std::array<double, 13> kSpeedIntra      = {40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0};
inline constexpr std::array<double, 19> kSpeedInter      = {48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0,
                                                            7.0,  6.0,  5.0,  4.0,  3.0,  2.4,  1.2,  0.24, 0.12};
inline constexpr std::array<double, 11> kSpeedIntraSm90  = {60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0};
inline constexpr std::array<double, 17> kSpeedInterSm90  = {48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5,
                                                            15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
inline constexpr std::array<double, 12> kSpeedIntraSm100 = {90.0, 80.0, 70.0, 60.0, 50.0, 45.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0};
inline constexpr std::array<double, 20> kSpeedInterSm100 = {96.0, 86.0, 80.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0,
                                                            20.0, 17.5, 15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
// Collective graphs use at most half of MAXCHANNELS (include/device.h: 64).
inline constexpr int kMaxChannels = 32;
// Bytes of user data one channel moves per pipeline step, from NCCL's default buffers: Simple 4 MiB over NCCL_STEPS
// 8 (init.cc NCCL_BUFFSIZE, include/device.h NCCL_STEPS); LL 512 KiB of which half is data; LL128 4,915,200 B of which
// 120/128 data; NVLS 128 KiB (transport/nvls.cc nvlsChunkSize).
inline constexpr double kChunkSimple = 524288;
inline constexpr double kChunkLl     = 32768;
inline constexpr double kChunkLl128  = 576000;
inline constexpr double kChunkNvls   = 131072;
// enqueue.cc: p2p operations use LL up to NCCL_P2P_LL_THRESHOLD bytes per channel (16 KiB), Simple beyond.
inline constexpr double kP2pLlThreshold = 16384;
inline constexpr int kP2pChannels       = 2; // channels per peer of a p2p operation (NCCL_NCHANNELS_PER_NET_PEER)

// NCCL 2.7.x's tuner (src/graph/tuning.cc at v2.7.8-1), whose model the 2.8 release replaced (per-channel tree
// ceilings, other latencies and corrections): what PyTorch 1.7 and 1.8 shipped. Same layout as above.
namespace v2_7 {
// tuning.cc:56 baseLat [LL, LL128, Simple].
inline constexpr Row3 kBaseLatencyTree = {4.4, 4.4, 0};
inline constexpr Row3 kBaseLatencyRing = {3.6, 10.0, 8.4};
// tuning.cc:63-70 hwLat per hop.
inline constexpr Row3 kNvlinkTree = {.52, 1.2, 28};
inline constexpr Row3 kNvlinkRing = {.47, 1.9, 3.4};
inline constexpr Row3 kPciTree    = {1.0, 1.9, 28};
inline constexpr Row3 kPciRing    = {1.0, 2.5, 5.7};
inline constexpr Row3 kNetTree    = {5.0, 8.5, 50};
inline constexpr Row3 kNetRing    = {2.7, 4.0, 9.6};
// tuning.cc:74 ll128MaxBwPerCh for all-gather, reduce-scatter and all-reduce.
inline constexpr double kLl128ChannelBwAllGather     = 18.3;
inline constexpr double kLl128ChannelBwReduceScatter = 15.2;
inline constexpr double kLl128ChannelBwAllReduce     = 16.7;
// tuning.cc:115-118 maxTreeBw, a cap on the whole tree (not per channel): 2 nodes or fewer, more; LL128 on Ampere.
inline constexpr double kTreeBwUpTo2Nodes       = 110;
inline constexpr double kTreeBwMoreNodes        = 80;
inline constexpr double kTreeLl128BwUpTo2Ampere = 130;
inline constexpr double kTreeLl128BwMoreAmpere  = 105;
// tuning.cc:112 Ampere's bus bandwidth cap (2.7.8; 2.7.3-2.7.6 scaled it by 0.92 instead).
inline constexpr double kAmpereBusCap = 235;
// tuning.cc:247-251 treeCorrectionFactor [proto][log2(bytes / 64)], 64 B .. 128 MiB; applied at tuning.cc:260.
inline constexpr std::array<std::array<double, 22>, 3> kTreeCorrection = {{
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .5, .6, .6, .7, .7, .8, .9, .9, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .5, .5, .6, .6, .7, .8, .9},
}};
// tuning.cc:261-262 the ring's plateau: a multi-node Simple all-reduce of at least nRanks / 16 x 64 KiB, latency x 1.9.
inline constexpr double kRingPlateau = 1.9;
} // namespace v2_7

} // namespace ccsim::sim::nccl_constants
