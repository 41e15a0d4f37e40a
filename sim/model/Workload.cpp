// Workload loader: model size, FLOPs and the papers' per-micro-batch compute times, validated field by field.
#include "sim/model/Workload.hpp"

#include "sim/model/ArchitectureInput.hpp"
#include "io/JsonInput.hpp"

#include <fmt/format.h>

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

double Workload::params_held(int expert_parallel) const
{
  const double all = static_cast<double>(params);
  if (!architecture || !architecture->moe() || expert_parallel <= 1)
    return all;
  const double experts = static_cast<double>(parameter_counts(*architecture).experts_total);
  return all - experts + experts / expert_parallel;
}

double Workload::flops_per_sample_at(int seq) const
{
  if (architecture && seq > 0 && seq != seq_len)
    return sim::flops_per_sample(*architecture, seq);
  return flops_per_sample * (seq > 0 && seq_len > 0 ? static_cast<double>(seq) / seq_len : 1.0);
}

namespace {
/// The family and defaults that only make sense with an architecture block: Llama and Mixtral are described by
/// theirs (family = Hugging Face's model_type), expert parallelism shards a mixture's experts, and sequence
/// parallelism changes the activations the architecture's formula counts.
void read_architecture_defaults(const io::JsonObject& root, const std::optional<TransformerArchitecture>& arch,
                                Workload& w)
{
  w.architecture = arch;
  const bool moe = arch && arch->moe();
  if ((w.family == "llama" || w.family == "mixtral") && !arch)
    root.fail_at("family", fmt::format("{} workloads are described by an architecture block: add one", w.family));
  if (w.family == "mixtral" && !moe)
    root.fail_at("family", "mixtral needs architecture.experts > 1 (a dense model is family llama)");
  if (w.family == "llama" && moe)
    root.fail_at("family", "llama is dense: a mixture of experts (architecture.experts > 1) is family mixtral");
  const auto d = root.object_if("defaults");
  if (!d)
    return;
  w.ep = static_cast<int>(d->integer_in_or("ep", io::range::kParallelDegree, 1));
  if (w.ep > 1 && !moe)
    d->fail_at("ep", "expert parallelism needs a mixture of experts (architecture.experts > 1)");
  if (moe && arch->experts % w.ep != 0)
    d->fail_at("ep", fmt::format("{} expert-parallel ranks do not divide the {} experts", w.ep, arch->experts));
  w.sequence_parallel = d->boolean_or("sequence_parallel", false);
  if (w.sequence_parallel && !arch)
    d->fail_at("sequence_parallel", "needs an architecture block (the activation formula it changes)");
  // Megatron refuses --tp-comm-overlap without sequence parallelism (megatron/training/arguments.py): the overlapped
  // collectives are its all-gathers and reduce-scatters.
  w.tp_overlap = d->boolean_or("tp_overlap", false);
  if (w.tp_overlap && !w.sequence_parallel)
    d->fail_at("tp_overlap", "overlaps sequence parallelism's all-gathers and reduce-scatters: needs sequence_parallel: true");
  if (w.tp_overlap && moe)
    d->fail_at("tp_overlap", "is modelled for dense layers only (a mixture's experts run grouped GEMMs)");
  if (d->has("precision"))
    w.precision = parse_precision(d->choice("precision", {"tf32", "fp16", "bf16", "fp8"}));
  w.recompute = *parse_recompute(d->choice_or("recompute", {"none", "selective", "full"}, "none"));
  if (w.recompute == Recompute::SELECTIVE && !arch)
    d->fail_at("recompute", "selective recomputation needs an architecture block (the attention core it reruns)");
  w.framework = d->choice_or("framework", known_frameworks(), REFERENCE_FRAMEWORK);
  if (w.tp_overlap && w.framework != REFERENCE_FRAMEWORK)
    d->fail_at("tp_overlap", fmt::format("is Megatron-Core's --tp-comm-overlap, which {} does not run", w.framework));
}
} // namespace

namespace {
/// The workload's "overlap" block (workloads/SCHEMA.md).
OverlapSettings read_overlap(const io::JsonObject& o, std::string& source)
{
  o.allow_only({"grad_reduction", "bucket_mb", "param_prefetch"});
  OverlapSettings out;
  out.grad_reduction = o.choice_or("grad_reduction", {"none", "bucketed"}, "none") == "bucketed" ? GradReduction::BUCKETED
                                                                                               : GradReduction::NONE;
  if (o.has("bucket_mb") && out.grad_reduction == GradReduction::NONE && !o.has("param_prefetch"))
    o.fail_at("bucket_mb", "sizes the buckets of a bucketed reduction or prefetch: set grad_reduction to bucketed");
  out.bucket_bytes   = static_cast<std::uint64_t>(o.number_in_or("bucket_mb", io::range::kBucketMb, 25) * 1e6);
  out.param_prefetch = o.boolean_or("param_prefetch", false);
  source             = o.string_or("source", "");
  return out;
}
} // namespace

Workload load_workload(const std::string& path)
{
  return workload_from_json(io::read_json_file(path), path);
}

Workload workload_from_json(const nlohmann::json& doc, const std::string& path)
{
  // An architecture block implies the size fields (sim/model/ArchitectureInput.hpp): they are filled in, or checked where
  // the file gives them, before the reads below.
  const auto architecture     = read_architecture(doc, path);
  const nlohmann::json filled = architecture ? with_architecture_fields(doc, *architecture, path) : nlohmann::json();
  const io::JsonObject root(architecture ? filled : doc, path);
  root.allow_only({"name", "family", "params", "layers", "hidden", "heads", "seq_len", "vocab", "tensors",
                   "flops_per_sample", "grad_bytes", "compute", "optimizer_s", "defaults", "architecture", "overlap"});
  Workload w;
  w.path             = path;
  w.name             = root.string_or("name", std::filesystem::path(path).stem().string());
  w.description      = root.string_or("description", "");
  w.family           = root.choice("family", {"bert", "gpt", "swin", "deberta", "llama", "mixtral"});
  w.params           = static_cast<std::uint64_t>(root.integer_in("params", io::range::kParams));
  w.layers           = static_cast<int>(root.integer_in("layers", io::range::kLayers));
  w.hidden           = static_cast<int>(root.integer_in("hidden", io::range::kHidden));
  w.heads            = static_cast<int>(root.integer_in_or("heads", io::range::kHeads, 1));
  w.seq_len          = static_cast<int>(root.integer_in("seq_len", io::range::kSeqLen));
  w.vocab            = static_cast<int>(root.integer_in_or("vocab", io::range::kVocab, 1));
  w.tensors          = static_cast<int>(root.integer_in("tensors", io::range::kTensors));
  w.flops_per_sample = root.number_in("flops_per_sample", io::range::kFlopsPerSample);
  w.grad_bytes       = root.number_in_or("grad_bytes", io::range::kBytesPerValue, 2);
  // Each value is in its range; together they must describe a model that could exist (Limits.hpp says why this bound).
  const double s = w.seq_len, dense = 6.0 * static_cast<double>(w.params) * s + 12.0 * s * s * w.layers * w.hidden;
  if (w.flops_per_sample > io::limits::kMaxFlopsOverDense * dense)
    root.fail_at("flops_per_sample",
                 fmt::format("{:.3g} is more than {:g} x the training FLOPs of a dense model of this size, 6 x params x "
                             "seq_len + 12 x seq_len^2 x layers x hidden = {:.3g}: not a physical value",
                             w.flops_per_sample, io::limits::kMaxFlopsOverDense, dense));

  if (root.has("compute")) {
    for (const auto& c : root.objects("compute")) {
      c.allow_only({"gpu", "micro_batch", "seq_len", "tp", "pp", "forward_ms", "backward_ms", "software"});
      ComputeProfile p;
      p.gpu         = c.string("gpu");
      p.micro_batch = static_cast<std::uint64_t>(c.integer_in("micro_batch", io::range::kBatch));
      p.seq_len     = static_cast<int>(c.integer_in_or("seq_len", io::range::kSeqLen, w.seq_len));
      p.tp          = static_cast<int>(c.integer_in_or("tp", io::range::kParallelDegree, 1));
      p.pp          = static_cast<int>(c.integer_in_or("pp", io::range::kParallelDegree, 1));
      p.forward_s   = c.number_in("forward_ms", io::range::kComputeMs) * 1e-3;
      p.backward_s  = c.number_in("backward_ms", io::range::kComputeMs) * 1e-3;
      p.software    = c.string_or("software", "");
      p.source      = c.string("source");
      w.compute.push_back(p);
    }
  }
  if (const auto opt = root.object_if("optimizer_s")) {
    for (const auto& [gpu, per] : opt->raw().items()) {
      if (io::is_note_key(gpu))
        continue;
      const auto by_gpu = opt->object(gpu);
      for (const auto& [name, _] : per.items())
        if (!io::is_note_key(name))
          w.optimizer_s[gpu][name] = by_gpu.number_in(name, io::range::kOptimizerS);
    }
  }
  if (const auto d = root.object_if("defaults")) {
    d->allow_only({"global_batch", "micro_batch", "tp", "pp", "vpp", "cp", "micro_batches", "grad_accumulation", "ep",
                   "sequence_parallel", "tp_overlap", "precision", "recompute", "zero", "framework", "pipeline_p2p"});
    w.pipeline_p2p_overlapped =
        d->choice_or("pipeline_p2p", pipeline_p2p_modes(), BLOCKING_PIPELINE_P2P) != BLOCKING_PIPELINE_P2P;
    w.global_batch  = static_cast<std::uint64_t>(d->integer_in_or("global_batch", io::range::kBatch, 0));
    w.grad_accumulation = static_cast<int>(d->integer_in_or("grad_accumulation", io::range::kMicroBatches, 0));
    w.micro_batch   = static_cast<std::uint64_t>(d->integer_in_or("micro_batch", io::range::kBatch, 0));
    w.tp            = static_cast<int>(d->integer_in_or("tp", io::range::kParallelDegree, 1));
    w.pp            = static_cast<int>(d->integer_in_or("pp", io::range::kParallelDegree, 1));
    w.vpp           = static_cast<int>(d->integer_in_or("vpp", io::range::kParallelDegree, 1));
    w.cp            = static_cast<int>(d->integer_in_or("cp", io::range::kParallelDegree, 1));
    w.micro_batches = static_cast<int>(d->integer_in_or("micro_batches", io::range::kMicroBatches, 0));
    if (d->has("zero"))
      w.zero = static_cast<int>(d->integer_in("zero", io::range::kZeroStage));
    if (w.grad_accumulation != 0 && (w.global_batch != 0 || w.micro_batches != 0))
      throw io::InputError(path, "/defaults/grad_accumulation",
                           "a batch that grows with data parallelism (grad_accumulation) excludes a fixed "
                           "global_batch or micro_batches: give one rule");
    if (w.grad_accumulation != 0 && w.micro_batch == 0)
      throw io::InputError(path, "/defaults/grad_accumulation", "needs defaults.micro_batch: global = dp x micro_batch x grad_accumulation");
  }
  w.batch_source = root.string_or("source_defaults", "");
  if (const auto d = root.object_if("defaults"))
    w.batch_source = d->string_or("source", w.batch_source);
  read_architecture_defaults(root, architecture, w);
  if (const auto o = root.object_if("overlap"))
    w.overlap = read_overlap(*o, w.overlap_source);
  return w;
}

} // namespace ccsim::sim
