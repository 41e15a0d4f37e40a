#pragma once
// The configuration hash of an experiment point: `experiment --resume` reuses a stored result only when the point it
// came from had the same hash. It covers everything a simulation's answer depends on that can change between two runs
// of one ccsim binary: every field of the point's request, and the bytes of the topology and workload files it names
// (an edited preset invalidates its results). It does not cover ccsim's own code: resume with the binary that wrote
// the results. Paper values and row labels are not configuration (they are applied when rows are assembled).

#include "api/output/Checksum.hpp"
#include "api/run/SimulateRequest.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace ccsim::api {

/// Version of resolved_request()'s layout; part of the hashed text, so changing the layout invalidates old hashes.
inline constexpr int kConfigHashVersion = 1;

/// The hashed document: {"hash_version": 1, "topology": {"name": N, "content_fnv1a64": H}, "workload": {...},
/// "algorithm", "gpus", "global_batch", "micro_batch", "tp", "pp", "bandwidth_gbps", "latency_us", "network_model"
/// (null when not set), "params" {key: text as given}, "fidelity", "links", "trace"}. A file that cannot be found or
/// read has content "unreadable" (the point then fails with its own one-line error when it runs).
nlohmann::json resolved_request(const SimulateRequest& request);

/// FNV-1a 64 (offset 14695981039346656037, prime 1099511628211) of io::dump_json(resolved_request(request)) — compact,
/// keys sorted — as 16 lower-case hex digits.
std::string config_hash(const SimulateRequest& request);

} // namespace ccsim::api
