// Workload loader: model size, FLOPs and the papers' per-micro-batch compute times, validated field by field.
#include "sim/Workload.hpp"

#include "sim/io/JsonInput.hpp"

#include <filesystem>

namespace ccsim::sim {

std::optional<ComputeProfile> Workload::find_compute(const std::string& gpu, std::uint64_t mb, int seq,
                                                     int tp_degree, const std::string& software) const
{
  // Exact match on GPU, micro-batch, sequence length and tp; the papers' tables give no basis to interpolate.
  std::optional<ComputeProfile> any;
  for (const auto& p : compute) {
    if (p.gpu != gpu || p.micro_batch != mb || p.seq_len != seq || p.tp != tp_degree)
      continue;
    if (!software.empty() && p.software == software)
      return p;
    if (p.software.empty() && !any)
      any = p;
  }
  return any;
}

std::optional<double> Workload::find_optimizer(const std::string& gpu, const std::string& name,
                                               const std::string& software) const
{
  const auto g = optimizer_s.find(gpu);
  if (g == optimizer_s.end())
    return std::nullopt;
  if (!software.empty())
    if (const auto o = g->second.find(name + "@" + software); o != g->second.end())
      return o->second;
  if (const auto o = g->second.find(name); o != g->second.end())
    return o->second;
  return std::nullopt;
}

Workload load_workload(const std::string& path)
{
  const auto doc = io::read_json_file(path);
  const io::JsonObject root(doc, path);
  root.allow_only({"name", "family", "params", "layers", "hidden", "heads", "seq_len", "vocab", "tensors",
                   "flops_per_sample", "grad_bytes", "compute", "optimizer_s", "defaults"});
  Workload w;
  w.path             = path;
  w.name             = root.string_or("name", std::filesystem::path(path).stem().string());
  w.description      = root.string_or("description", "");
  w.family           = root.choice("family", {"bert", "gpt", "swin", "deberta"});
  w.params           = static_cast<std::uint64_t>(root.positive_integer("params"));
  w.layers           = static_cast<int>(root.positive_integer("layers"));
  w.hidden           = static_cast<int>(root.positive_integer("hidden"));
  w.heads            = static_cast<int>(root.positive_integer_or("heads", 1));
  w.seq_len          = static_cast<int>(root.positive_integer("seq_len"));
  w.vocab            = static_cast<int>(root.positive_integer_or("vocab", 1));
  w.tensors          = static_cast<int>(root.positive_integer("tensors"));
  w.flops_per_sample = root.positive("flops_per_sample");
  w.grad_bytes       = root.positive_or("grad_bytes", 2);

  if (root.has("compute")) {
    for (const auto& c : root.objects("compute")) {
      c.allow_only({"gpu", "micro_batch", "seq_len", "tp", "pp", "forward_ms", "backward_ms", "software"});
      ComputeProfile p;
      p.gpu         = c.string("gpu");
      p.micro_batch = static_cast<std::uint64_t>(c.positive_integer("micro_batch"));
      p.seq_len     = static_cast<int>(c.positive_integer_or("seq_len", w.seq_len));
      p.tp          = static_cast<int>(c.positive_integer_or("tp", 1));
      p.pp          = static_cast<int>(c.positive_integer_or("pp", 1));
      p.forward_s   = c.positive("forward_ms") * 1e-3;
      p.backward_s  = c.positive("backward_ms") * 1e-3;
      p.software    = c.string_or("software", "");
      p.source      = c.string("source");
      w.compute.push_back(p);
    }
  }
  if (const auto opt = root.object_if("optimizer_s")) {
    for (const auto& [gpu, per] : opt->raw().items()) {
      if (gpu.rfind("source", 0) == 0)
        continue;
      const auto by_gpu = opt->object(gpu);
      for (const auto& [name, _] : per.items())
        if (name.rfind("source", 0) != 0)
          w.optimizer_s[gpu][name] = by_gpu.positive(name);
    }
  }
  if (const auto d = root.object_if("defaults")) {
    d->allow_only({"global_batch", "micro_batch", "tp", "pp", "micro_batches"});
    w.global_batch  = static_cast<std::uint64_t>(d->positive_integer_or("global_batch", 0));
    w.micro_batch   = static_cast<std::uint64_t>(d->positive_integer_or("micro_batch", 0));
    w.tp            = static_cast<int>(d->positive_integer_or("tp", 1));
    w.pp            = static_cast<int>(d->positive_integer_or("pp", 1));
    w.micro_batches = static_cast<int>(d->positive_integer_or("micro_batches", 0));
  }
  return w;
}

} // namespace ccsim::sim
