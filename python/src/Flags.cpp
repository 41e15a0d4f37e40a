// Keyword arguments read as the command line reads its flags (see Flags.hpp): the same parsers, ranges and messages.
#include "Flags.hpp"

#include "io/JsonInput.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace ccsim::python {

std::optional<std::string> Flags::text(const std::string& flag) const
{
  const auto it = values_.find(flag);
  if (it == values_.end())
    return std::nullopt;
  return it->second;
}

std::optional<std::int64_t> Flags::integer(const std::string& flag, const io::Range& range) const
{
  const auto t = text(flag);
  if (!t)
    return std::nullopt;
  return io::parse_integer(*t, range, "--" + flag);
}

std::optional<double> Flags::number(const std::string& flag, const io::Range& range) const
{
  const auto t = text(flag);
  if (!t)
    return std::nullopt;
  return io::parse_number(*t, range, "--" + flag);
}

std::optional<std::string> Flags::choice(const std::string& flag, const std::vector<std::string>& choices) const
{
  const auto t = text(flag);
  if (!t)
    return std::nullopt;
  if (std::find(choices.begin(), choices.end(), *t) == choices.end()) {
    std::string known;
    for (const auto& c : choices)
      known += (known.empty() ? "" : ", ") + c;
    throw io::InputError("--" + flag, "", io::echo(*t) + " is not one of: " + known);
  }
  return t;
}

api::InputSource input_source(const std::string& name, const std::optional<std::string>& json_text)
{
  if (!json_text)
    return api::InputSource(name);
  return api::InputSource::from_document(io::parse_json_text(*json_text, name), name);
}

void read_shape(const Flags& flags, api::SimulateRequest& req, bool parallelism)
{
  req.gpus = static_cast<int>(flags.integer("gpus", io::range::kGpus).value_or(0));
  if (const auto b = flags.integer("global-batch", io::range::kBatch))
    req.global_batch = static_cast<std::uint64_t>(*b);
  if (const auto b = flags.integer("micro-batch", io::range::kBatch))
    req.micro_batch = static_cast<std::uint64_t>(*b);
  if (!parallelism)
    return;
  if (const auto t = flags.integer("tp", io::range::kParallelDegree))
    req.tp = static_cast<int>(*t);
  if (const auto p = flags.integer("pp", io::range::kParallelDegree))
    req.pp = static_cast<int>(*p);
}

api::SimulateRequest simulate_request(const SimulateArgs& a)
{
  api::SimulateRequest req;
  req.topology  = a.topology;
  req.workload  = a.workload;
  req.algorithm = a.algorithm;
  read_shape(a.flags, req, /*parallelism=*/true);
  req.bandwidth_gbps = a.flags.number("bandwidth-gbps", io::range::kLinkGbps);
  req.latency_us     = a.flags.number("latency-us", io::range::kLatencyUs);
  req.network_model  = a.flags.choice("network-model", {"rdma", "tcp"});
  for (const auto& [key, value] : a.params) {
    if (key.empty() || value.empty())
      throw io::InputError("--param", "", io::echo(key + "=" + value) + " is not of the form key=value");
    req.params[key] = value;
  }
  req.fidelity  = a.flags.choice("fidelity", {"exact", "fast"}).value_or("fast");
  req.links     = a.links;
  req.trace     = a.trace;
  req.allow_oom = a.allow_oom;
  for (const auto& [rank_text, factor_text] : a.slow_gpus) {
    const auto rank     = io::parse_integer(rank_text, io::Range{0, io::range::kGpus.hi - 1}, "--slow-gpu");
    const double factor = io::parse_number(factor_text, io::range::kComputeScale, "--slow-gpu");
    if (!req.slow_gpus.emplace(static_cast<int>(rank), factor).second)
      throw io::InputError("--slow-gpu", "", fmt::format("rank {} is given twice", rank));
  }
  req.straggler_cv   = a.flags.number("straggler-cv", io::range::kStragglerCv).value_or(0);
  req.straggler_seed = static_cast<std::uint64_t>(a.flags.integer("straggler-seed", io::range::kSeed).value_or(1));
  return req;
}

} // namespace ccsim::python
