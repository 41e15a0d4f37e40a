#pragma once
// The topology's "nccl" block read into sim::NcclConfig (topologies/SCHEMA.md, "Collectives as NCCL runs them"):
// parse, check with the JSON pointer in hand, convert to SI once. Its ranges live here and in SCHEMA.md.

#include "sim/platform/NcclConfig.hpp"
#include "io/JsonObject.hpp"

namespace ccsim::sim {

namespace nccl_limits {
inline constexpr io::Range kChannels{1, 64};          // NCCL's MAXCHANNELS
inline constexpr io::Range kLatencyScale{0.01, 100};  // x NCCL's intra-node hop latencies
inline constexpr io::Range kFill{0, 1000};            // chunk-times per hop
inline constexpr io::Range kCeilingScale{0.001, 100}; // x NCCL's GPU-side ceilings
inline constexpr io::Range kTunerBytes{1, 1.8e19};    // a tuner table's size bound, bytes
} // namespace nccl_limits

/// Reads `block`; `intra_line_bytes_per_s` bounds the NVLS and p2p rates (a GPU's port cannot deliver more than its
/// line rate).
NcclConfig nccl_config_from_json(const io::JsonObject& block, double intra_line_bytes_per_s);

/// The "tuner_table" member of `o` (empty when absent): entries ascending in max_bytes.
std::vector<TunerEntry> tuner_table_from_json(const io::JsonObject& o);

} // namespace ccsim::sim
