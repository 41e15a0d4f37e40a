// Configuration hashes for resume. FNV-1a: tiny, dependency-free and stable across platforms; it guards against
// reusing a result for a different configuration, not against an adversary editing the results file.
#include "api/experiment/ConfigHash.hpp"

#include "api/output/Checksum.hpp"
#include "io/JsonInput.hpp"

#include <fmt/format.h>

#include <fstream>
#include <map>
#include <sstream>

namespace ccsim::api {

namespace {
/// {"name": as given, "content_fnv1a64": hash of the file it resolves to}. Cached per name: an experiment's points
/// share a few files, and the files do not change during one run.
nlohmann::json file_identity(const std::string& kind, const InputSource& source)
{
  // A document in memory: its own bytes as ccsim writes them.
  if (source.document)
    return {{"name", source.name}, {"content_fnv1a64", fmt::format("{:016x}", fnv1a64(io::dump_json(*source.document)))}};
  const std::string& name = source.name;
  static std::map<std::pair<std::string, std::string>, std::string> cache;
  auto& content = cache[{kind, name}];
  if (content.empty()) {
    content = "unreadable";
    try {
      std::ifstream in(io::resolve_preset(kind, name, "--" + kind), std::ios::binary);
      std::ostringstream bytes;
      bytes << in.rdbuf();
      if (in)
        content = fmt::format("{:016x}", fnv1a64(bytes.str()));
    } catch (const io::InputError&) {
    }
  }
  return {{"name", name}, {"content_fnv1a64", content}};
}

template <typename T> nlohmann::json or_null(const std::optional<T>& v)
{
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}
} // namespace

nlohmann::json resolved_request(const SimulateRequest& r)
{
  nlohmann::json doc = {{"hash_version", kConfigHashVersion},
          {"topology", file_identity("topologies", r.topology)},
          {"workload", file_identity("workloads", r.workload)},
          {"algorithm", r.algorithm},
          {"gpus", r.gpus},
          {"global_batch", or_null(r.global_batch)},
          {"micro_batch", or_null(r.micro_batch)},
          {"tp", or_null(r.tp)},
          {"pp", or_null(r.pp)},
          {"bandwidth_gbps", or_null(r.bandwidth_gbps)},
          {"latency_us", or_null(r.latency_us)},
          {"network_model", or_null(r.network_model)},
          {"params", r.params},
          {"fidelity", r.fidelity},
          {"links", r.links},
          {"trace", r.trace}};
  // Knobs added later enter only when set, so the hashes of results stored before them stay valid.
  if (r.straggler_cv > 0 || !r.slow_gpus.empty()) {
    doc["straggler_cv"]   = r.straggler_cv;
    doc["straggler_seed"] = r.straggler_seed;
    nlohmann::json slow   = nlohmann::json::object();
    for (const auto& [rank, f] : r.slow_gpus)
      slow[std::to_string(rank)] = f;
    doc["slow_gpus"] = slow;
  }
  if (r.allow_oom)
    doc["allow_oom"] = true;
  if (r.overlap)
    doc["overlap"] = *r.overlap;
  if (r.bucket_mb)
    doc["bucket_mb"] = *r.bucket_mb;
  if (r.param_prefetch)
    doc["param_prefetch"] = *r.param_prefetch;
  if (r.recompute) // full keeps the hash of the former flag
    doc["recompute"] = *r.recompute == "full" ? nlohmann::json(true) : nlohmann::json(*r.recompute);
  if (r.vpp)
    doc["vpp"] = *r.vpp;
  if (r.memory_headroom_gb)
    doc["memory_headroom_gb"] = *r.memory_headroom_gb;
  if (r.zero)
    doc["zero"] = *r.zero;
  if (r.tp_overlap)
    doc["tp_overlap"] = *r.tp_overlap;
  if (r.cp)
    doc["cp"] = *r.cp;
  if (r.framework)
    doc["framework"] = *r.framework;
  if (r.pipeline_p2p)
    doc["pipeline_p2p"] = *r.pipeline_p2p;
  return doc;
}

std::string config_hash(const SimulateRequest& request)
{
  return fmt::format("{:016x}", fnv1a64(io::dump_json(resolved_request(request))));
}

} // namespace ccsim::api
