// The "nccl" block; see NcclConfigJson.hpp.
#include "sim/platform/NcclConfigJson.hpp"

#include "io/JsonInput.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace ccsim::sim {

namespace {
constexpr double GBPS = 1e9 / 8; // bytes/s in one Gbit/s
constexpr double US   = 1e-6;

std::string lower(std::string s)
{
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return s;
}

/// A delivered rate in Gbit/s that may not exceed the GPU port's line rate.
std::optional<double> port_rate(const io::JsonObject& o, const char* key, double line)
{
  if (!o.has(key))
    return std::nullopt;
  const double rate = o.number_in(key, io::range::kLinkGbps) * GBPS;
  if (rate > line * (1 + 1e-9))
    o.fail_at(key, fmt::format("must not exceed intra_node.bandwidth_gbps ({:g}, the port's line rate)", line / GBPS));
  return rate;
}
} // namespace

std::string to_string(Algo a)
{
  switch (a) {
  case Algo::AUTO: return "auto";
  case Algo::RING: return "ring";
  case Algo::HIERARCHICAL: return "hierarchical";
  case Algo::DIRECT: return "p2p";
  case Algo::TREE: return "tree";
  case Algo::NVLS: return "nvls";
  case Algo::NVLS_TREE: return "nvls_tree";
  }
  return "?";
}

std::string to_string(Proto p)
{
  return p == Proto::LL ? "LL" : (p == Proto::LL128 ? "LL128" : "Simple");
}

std::optional<Algo> algo_from_string(const std::string& name)
{
  const std::string n = lower(name);
  for (const Algo a : {Algo::RING, Algo::TREE, Algo::NVLS, Algo::NVLS_TREE, Algo::DIRECT, Algo::HIERARCHICAL})
    if (n == to_string(a) || (a == Algo::NVLS_TREE && n == "nvlstree"))
      return a;
  return std::nullopt;
}

std::optional<Proto> proto_from_string(const std::string& name)
{
  const std::string n = lower(name);
  for (const Proto p : kProtocols)
    if (n == lower(to_string(p)))
      return p;
  return std::nullopt;
}

std::vector<TunerEntry> tuner_table_from_json(const io::JsonObject& o)
{
  std::vector<TunerEntry> table;
  if (!o.has("tuner_table"))
    return table;
  std::uint64_t last = 0;
  for (const auto& e : o.objects("tuner_table")) {
    e.allow_only({"max_bytes", "algorithm", "protocol", "channels"});
    TunerEntry t;
    t.max_bytes  = static_cast<std::uint64_t>(e.integer_in("max_bytes", nccl_limits::kTunerBytes));
    const auto a = algo_from_string(e.string("algorithm"));
    if (!a || *a == Algo::DIRECT || *a == Algo::HIERARCHICAL)
      e.fail_at("algorithm", fmt::format("{} is not one of ring, tree, nvls, nvls_tree", io::echo(e.string("algorithm"))));
    const auto p = proto_from_string(e.string("protocol"));
    if (!p)
      e.fail_at("protocol", fmt::format("{} is not one of LL, LL128, Simple", io::echo(e.string("protocol"))));
    t.algo     = *a;
    t.proto    = *p;
    t.channels = static_cast<int>(e.integer_in_or("channels", nccl_limits::kChannels, 0));
    if (t.max_bytes <= last)
      e.fail_at("max_bytes", "must grow from entry to entry");
    last = t.max_bytes;
    table.push_back(t);
  }
  return table;
}

NcclConfig nccl_config_from_json(const io::JsonObject& o, double intra_line)
{
  o.allow_only({"gpu_arch", "cpu", "nvls", "algorithms", "protocols", "channels", "selection", "latency_model",
                "nvls_gbps", "p2p_gbps", "ceiling_scale", "latency_us", "fill",
                "tuner_table", "socket_threads", "version", "source_version"});
  NcclConfig c;
  c.present          = true;
  const auto arch    = o.choice("gpu_arch", {"volta", "ampere", "hopper", "blackwell"});
  c.arch             = arch == "volta" ? GpuArch::VOLTA : arch == "ampere" ? GpuArch::AMPERE
                       : arch == "hopper" ? GpuArch::HOPPER : GpuArch::BLACKWELL;
  c.cpu              = o.choice_or("cpu", {"intel", "amd"}, "intel") == "amd" ? CpuVendor::AMD : CpuVendor::INTEL;
  c.nvls             = o.boolean_or("nvls", false);
  if (c.nvls && *c.arch < GpuArch::HOPPER)
    o.fail_at("nvls", "NVLS needs Hopper or later (gpu_arch " + arch + ")");
  c.selection = o.choice_or("selection", {"nccl", "fastest"}, "nccl") == "nccl" ? Selection::NCCL : Selection::FASTEST;
  c.latency   = o.choice_or("latency_model", {"nccl", "links"}, "nccl") == "nccl" ? LatencyModel::NCCL : LatencyModel::LINKS;
  if (o.has("algorithms")) {
    const auto names = o.strings("algorithms");
    if (names.empty())
      o.fail_at("algorithms", "must name at least one algorithm");
    for (std::size_t i = 0; i < names.size(); ++i) {
      const auto a = algo_from_string(names[i]);
      if (!a || *a == Algo::DIRECT)
        o.fail_at("algorithms", fmt::format("element {}: {} is not one of ring, tree, nvls, nvls_tree, hierarchical", i,
                                            io::echo(names[i])));
      if ((*a == Algo::NVLS || *a == Algo::NVLS_TREE) && !c.nvls)
        o.fail_at("algorithms", fmt::format("{} needs \"nvls\": true", names[i]));
      c.algorithms.push_back(*a);
    }
    if (std::find(c.algorithms.begin(), c.algorithms.end(), Algo::HIERARCHICAL) != c.algorithms.end() &&
        c.algorithms.size() > 1)
      o.fail_at("algorithms", "hierarchical is ccsim's own all-reduce: it can only be forced alone");
  }
  if (o.has("protocols")) {
    const auto names = o.strings("protocols");
    if (names.empty())
      o.fail_at("protocols", "must name at least one protocol");
    for (std::size_t i = 0; i < names.size(); ++i) {
      const auto p = proto_from_string(names[i]);
      if (!p)
        o.fail_at("protocols", fmt::format("{} is not one of LL, LL128, Simple", io::echo(names[i])));
      c.protocols.push_back(*p);
    }
  }
  if (o.has("channels"))
    c.channels = static_cast<int>(o.integer_in("channels", nccl_limits::kChannels));
  if (o.has("socket_threads")) // net_socket.cc: MAX_THREADS 16
    c.socket_threads = static_cast<int>(o.integer_in("socket_threads", io::Range{1, 16, false}));
  c.nvls_bytes_per_s = port_rate(o, "nvls_gbps", intra_line);
  if (c.nvls && !c.nvls_bytes_per_s)
    o.fail_at("nvls", "\"nvls\": true needs nvls_gbps (what the switch reduction delivers per GPU)");
  c.p2p_bytes_per_s = port_rate(o, "p2p_gbps", intra_line);
  if (const auto scale = o.object_if("ceiling_scale")) {
    scale->allow_only({"LL", "LL128", "tree"});
    c.ceiling_scale = {scale->number_in_or("LL", nccl_limits::kCeilingScale, 1),
                       scale->number_in_or("LL128", nccl_limits::kCeilingScale, 1),
                       scale->number_in_or("tree", nccl_limits::kCeilingScale, 1)};
  }
  if (const auto lat = o.object_if("latency_us")) {
    lat->allow_only({"base_extra", "intra_scale", "net_extra"});
    c.base_extra_s        = lat->number_in_or("base_extra", io::range::kLatencyUs, 0) * US;
    c.intra_latency_scale = lat->number_in_or("intra_scale", nccl_limits::kLatencyScale, 1);
    if (const auto net = lat->object_if("net_extra")) {
      net->allow_only({"LL", "LL128", "Simple"});
      for (const Proto p : kProtocols)
        c.net_extra_s[static_cast<std::size_t>(proto_index(p))] =
            net->number_in_or(to_string(p), io::range::kLatencyUs, 0) * US;
    }
  }
  if (const auto fill = o.object_if("fill")) {
    fill->allow_only({"tree", "nvls_tree", "nvls"});
    c.fill_tree      = fill->number_in_or("tree", nccl_limits::kFill, 0);
    c.fill_nvls_tree = fill->number_in_or("nvls_tree", nccl_limits::kFill, 0);
    c.fill_nvls      = fill->number_in_or("nvls", nccl_limits::kFill, 0);
  }
  c.tuner_table = tuner_table_from_json(o);
  if (o.has("version")) {
    c.version = parse_nccl_version(o.string("version"));
    if (!c.version)
      o.fail_at("version", fmt::format("{} is not an NCCL 2 release (\"2.18.1\", as `NCCL version` prints it)",
                                       io::echo(o.string("version"))));
    for (const Algo a : c.algorithms)
      if (!release_has(c.version, a))
        o.fail_at("version", fmt::format("NCCL {} predates {}, which algorithms names", c.version->text(), added_in(a)));
    for (const Proto p : c.protocols)
      if (!release_has(c.version, p))
        o.fail_at("version", fmt::format("NCCL {} predates {}, which protocols names", c.version->text(), added_in(p)));
  }
  return c;
}

} // namespace ccsim::sim
