#pragma once
// What a topology says about how its collectives run (the optional "nccl" block of topologies/SCHEMA.md), in SI units.
// Without the block a topology runs ccsim's own collectives as it always has (ring, and the hierarchical all-reduce
// on several nodes of several GPUs; latency from the links). With it, the collectives run as NCCL runs them:
// NCCL's algorithms and protocols, chosen per size by NCCL's cost model (sim/nccl/NcclTuner.hpp), timed by the calibrated
// physical model (sim/nccl/NcclModel.hpp) and simulated as flows (sim/nccl/NcclFlows.hpp).

#include "sim/model/CommPlan.hpp"
#include "sim/platform/NcclVersion.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ccsim::sim {

/// NCCL's protocols (src/device.h): LL carries 4 bytes of data per 8-byte line, LL128 120 of every 128, Simple all.
enum class Proto { LL, LL128, SIMPLE };
inline constexpr std::array<Proto, 3> kProtocols = {Proto::LL, Proto::LL128, Proto::SIMPLE};
inline int proto_index(Proto p) { return static_cast<int>(p); }

/// NCCL's tuning rows (compute capability 7x / 8x / 9x / 10x).
enum class GpuArch { VOLTA, AMPERE, HOPPER, BLACKWELL };
/// NCCL's LL ceiling and network post overhead depend on the host CPU (tuning.cc:228-233, :267-270).
enum class CpuVendor { INTEL, AMD };
/// Where a collective's latency comes from: NCCL's per-hop latencies (tuning.cc) plus the calibrated extras, or the
/// simulated links' own latencies, one route latency per round (ccsim's alpha-beta closed forms).
enum class LatencyModel { NCCL, LINKS };
/// How the algorithm and protocol are chosen: ccsim's own rule (hierarchical all-reduce across nodes of several GPUs,
/// ring otherwise), NCCL's cost model (its near-ties settled by the calibrated model), or the fastest calibrated one.
enum class Selection { CCSIM, NCCL, FASTEST };

/// One line of a tuner plugin's table: up to `max_bytes`, this algorithm and protocol on `channels` channels
/// (0: the channels NCCL's graph gives).
struct TunerEntry {
  std::uint64_t max_bytes = 0;
  Algo algo               = Algo::RING;
  Proto proto             = Proto::SIMPLE;
  int channels            = 0;
};

struct NcclConfig {
  bool present = false; // the topology has an "nccl" block
  std::optional<GpuArch> arch;
  CpuVendor cpu = CpuVendor::INTEL;
  bool nvls     = false;            // NVSwitch multicast / in-switch reduction (NVLS, NVLS-Tree)
  std::vector<Algo> algorithms;     // NCCL_ALGO: those allowed (empty: every one the cluster supports)
  std::vector<Proto> protocols;     // NCCL_PROTO (empty: all three)
  std::optional<int> channels;      // NCCL_MIN_NCHANNELS = NCCL_MAX_NCHANNELS (absent: NCCL's graph)
  /// NCCL_SOCKET_NTHREADS as NCCL resolves it for the socket transport (net_socket.cc ncclSocketGetNsockNthread: 1,
  /// or 2 on an AWS ENA NIC, each thread serving NCCL_NSOCKS_PERTHREAD sockets). Given, every inter-node hop of a ring
  /// is that many flows per connection, one connection per channel, each under nic.per_flow_gbps: the ceiling is
  /// one socket thread's (issue 48). Absent: one flow per hop, as before.
  std::optional<int> socket_threads;
  LatencyModel latency = LatencyModel::NCCL;
  Selection selection  = Selection::NCCL;
  // Delivered rates per GPU and direction, bytes/s (absent: defaults of NcclModel.cpp).
  std::optional<double> nvls_bytes_per_s; // NVLS all-reduce algorithm bandwidth through the switch
  std::optional<double> p2p_bytes_per_s;  // send/recv between two GPUs of a node
  // GPU-side ceilings of the protocol kernels: NCCL's tables (tuning.cc:177-211, by GPU, CPU and node count) x these
  // calibrated scales, for LL (llMaxBws), LL128 (perChMax*LL128Bws) and the tree with Simple (perChMaxTreeBws).
  std::array<double, 3> ceiling_scale{1, 1, 1};
  // Latency: NCCL's per-hop latencies, scaled and extended by calibrated constants.
  double base_extra_s        = 0;  // added once per collective
  double intra_latency_scale = 1;  // x NCCL's intra-node hop latencies
  std::array<double, 3> net_extra_s{}; // added to NCCL's network hop latency, per protocol (LL, LL128, Simple)
  // Pipeline fill of the tree-like algorithms, in chunk-times per hop (NcclModel.cpp).
  double fill_tree = 0, fill_nvls_tree = 0, fill_nvls = 0;
  std::vector<TunerEntry> tuner_table; // a tuner plugin's choices by size, ascending (sizes above the last: the rule)
  /// The NCCL release the cluster runs (absent: the newest): algorithms and protocols it predates are not chosen.
  std::optional<NcclVersion> version;
};

/// Whether the release has the algorithm (ring, p2p and ccsim's own hierarchical: every release); no version: yes
/// (sim/platform/NcclVersion.hpp cites the release commits).
bool release_has(const std::optional<NcclVersion>& v, Algo a);
/// Whether the release has the protocol (LL128 from 2.5.6); no version: yes.
bool release_has(const std::optional<NcclVersion>& v, Proto p);
/// "NVLS from 2.17.1": the release that added it, for messages.
std::string added_in(Algo a);
std::string added_in(Proto p);

/// "ring", "tree", "nvls", "nvls_tree", "p2p" (DIRECT), "hierarchical", "auto".
std::string to_string(Algo a);
/// "LL", "LL128", "Simple".
std::string to_string(Proto p);
/// The algorithm or protocol of a name as NCCL_ALGO / NCCL_PROTO spell them (case-insensitive); nullopt when unknown.
std::optional<Algo> algo_from_string(const std::string& name);
std::optional<Proto> proto_from_string(const std::string& name);

} // namespace ccsim::sim
