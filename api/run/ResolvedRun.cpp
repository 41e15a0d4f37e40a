// Resolving a request: load the topology and workload, apply the overrides, check every parameter and the shape of
// the run (GPUs, tp x pp, the batch rules, the memory), and plan the algorithm's step. See ResolvedRun.hpp.
#include "api/run/ResolvedRun.hpp"

#include "algorithms/Registry.hpp"
#include "sim/compute/CostModel.hpp"
#include "sim/compute/OperatorCost.hpp"
#include "sim/model/TrainingRecipe.hpp"

#include "io/JsonInput.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <type_traits>

namespace ccsim::api {

namespace {
// --param keys that change the workload rather than the algorithm.
// ep (the expert-parallel degree) is one too, named among them only for a mixture of experts.
const std::vector<std::string> WORKLOAD_PARAMS = {"seq_len", "micro_batches"};

std::string known_algorithms()
{
  std::string s;
  for (const auto* a : algorithms::plan_algorithms())
    s += (s.empty() ? "" : ", ") + a->name();
  return s.empty() ? "none" : s;
}

/// An explicit --param ep, checked: expert parallelism as Megatron-Core lays it out (sim/layout/RankLayout.hpp) puts ep
/// data-parallel replicas around one copy of a mixture's experts, so ep divides both the experts and dp. Tensor
/// parallelism inside an expert-parallel group (Megatron-Core then needs sequence and expert-tensor parallelism) and
/// the pipeline algorithms are not modelled with it.
/// The workload's "overlap" block with the request's flags over it.
sim::OverlapSettings overlap_settings(const SimulateRequest& req, const sim::Workload& work)
{
  sim::OverlapSettings o = work.overlap;
  if (req.overlap) {
    if (*req.overlap != "none" && *req.overlap != "bucketed")
      throw io::InputError("--overlap", "", fmt::format("{} is not one of: none, bucketed", io::echo(*req.overlap)));
    o.grad_reduction = *req.overlap == "bucketed" ? sim::GradReduction::BUCKETED : sim::GradReduction::NONE;
  }
  if (req.bucket_mb)
    o.bucket_bytes = static_cast<std::uint64_t>(io::check_range(*req.bucket_mb, io::range::kBucketMb, false, "--bucket-mb") * 1e6);
  if (req.param_prefetch)
    o.param_prefetch = *req.param_prefetch;
  return o;
}

void check_expert_parallel(const sim::StepShape& s, const sim::Workload& work, const algorithms::PlanAlgorithm& algo)
{
  if (s.ep == 1)
    return;
  const std::string what = fmt::format("ep={}: ", s.ep);
  if (!work.architecture || !work.architecture->moe())
    throw io::InputError("--param", "", what + fmt::format("workload {} is not a mixture of experts", work.name));
  if (work.architecture->experts % s.ep != 0)
    throw io::InputError("--param", "", what + fmt::format("does not divide the {} experts", work.architecture->experts));
  if (s.dp % s.ep != 0)
    throw io::InputError("--param", "", what + fmt::format("does not divide the {} data-parallel ranks", s.dp));
  if (s.tp > 1)
    throw io::InputError("--param", "", what + "expert parallelism with tensor parallelism is not modelled: use tp 1");
  if (algo.parallelism() == algorithms::Parallelism::PIPELINE)
    throw io::InputError("--param", "", what + algo.name() + " is a pipeline algorithm, without expert parallelism");
}
} // namespace

std::string topology_location(const InputSource& source)
{
  return source.document ? source.name : io::resolve_preset("topologies", source.name, "--topology");
}

sim::Topology load_topology(const InputSource& source)
{
  if (source.document)
    return sim::topology_from_json(*source.document, source.name);
  return sim::load_topology(io::resolve_preset("topologies", source.name, "--topology"));
}

sim::Workload load_workload(const InputSource& source)
{
  if (source.document)
    return sim::workload_from_json(*source.document, source.name);
  return sim::load_workload(io::resolve_preset("workloads", source.name, "--workload"));
}

namespace {
/// Model chunks per pipeline rank: --vpp as given (checked), else the workload's default where it applies (a run
/// without pipeline stages, or whose stages do not split into whole chunks, runs plain 1F1B).
int resolve_vpp(const SimulateRequest& req, const sim::Workload& work, const algorithms::PlanAlgorithm& algo, int pp)
{
  const auto applies = [&](int vpp) {
    // A workload from its architecture prices each stage from its layers, the embedding and the output layer
    // (sim/compute/OperatorCost.hpp), so those two may take a layer's slot each; another divides its layers alone.
    return vpp == 1 || (pp > 1 && algo.parallelism() != algorithms::Parallelism::PIPELINE &&
                        sim::chunks_are_whole(work.layers, pp, vpp, work.architecture.has_value()));
  };
  if (!req.vpp)
    return applies(work.vpp) ? work.vpp : 1;
  const int vpp = static_cast<int>(io::check_range(*req.vpp, io::range::kParallelDegree, /*integer=*/true, "--vpp"));
  if (vpp == 1 || applies(vpp))
    return vpp;
  if (pp < 2)
    throw io::InputError("--vpp", "", fmt::format("{} model chunks per stage interleave a pipeline: give --pp >= 2", vpp));
  if (algo.parallelism() == algorithms::Parallelism::PIPELINE)
    throw io::InputError("--vpp", "", fmt::format("{} runs GPipe; the interleaved schedule is Megatron's 1F1B for the "
                                                  "data-parallel algorithms with --pp", algo.name()));
  throw io::InputError("--vpp", "", fmt::format("{} layers of {} do not split into pp x vpp = {} x {} whole chunks{}",
                                                work.layers, work.name, pp, vpp,
                                                work.architecture ? fmt::format(" (nor do {} + 2, the embedding and the "
                                                                                "output layer taking a layer's slot each)",
                                                                                work.layers)
                                                                  : ""));
}

/// The context-parallel degree: --cp as given, else the workload's defaults.cp (an error names whichever set it).
/// Context parallelism splits each sequence over cp ranks with ring attention (sim/model/CommPlan.hpp, RingAttention):
/// it needs the architecture's attention heads and Transformer Engine's fused attention (FlashAttention), and an
/// algorithm whose plan reduces and shards over the dp x cp gradient group (its descriptor's context_parallel).
int resolve_cp(const SimulateRequest& req, const sim::Workload& work, const algorithms::PlanAlgorithm& algo)
{
  const int cp = req.cp ? static_cast<int>(io::check_range(*req.cp, io::range::kParallelDegree, /*integer=*/true, "--cp"))
                        : work.cp;
  if (cp == 1)
    return 1;
  const auto fail = [&](const std::string& what) {
    if (req.cp)
      throw io::InputError("--cp", "", fmt::format("{}: {}", cp, what));
    throw io::InputError(work.path, "/defaults/cp", fmt::format("{}: {}", cp, what));
  };
  if (!work.architecture)
    fail(fmt::format("context parallelism needs workload {} to have an architecture block (the attention it splits)",
                     work.name));
  if (!work.architecture->flash_attention)
    fail(fmt::format("context parallelism runs in Transformer Engine's fused attention, but workload {} sets "
                     "architecture.flash_attention false", work.name));
  const auto& d = algorithms::algorithm_named(algo.name());
  if (!d.context_parallel) {
    std::string able;
    for (const auto* a : algorithms::plan_algorithms())
      if (algorithms::algorithm_named(a->name()).context_parallel)
        able += (able.empty() ? "" : ", ") + a->name();
    fail(fmt::format("{} does not run context parallelism (algorithms that do: {})", d.name, able));
  }
  return cp;
}

/// The sequence checks of context parallelism, once the shape has its sequence: Megatron-Core splits each sequence
/// into 2 cp chunks (rank i holds chunks i and 2cp - 1 - i, which balances the causal work), and with sequence
/// parallelism each rank's share is split tp ways again, so seq_len must divide by 2 cp (x tp with sequence
/// parallelism). Expert parallelism with it is not modelled.
void check_context_parallel(const SimulateRequest& req, const sim::Workload& work, const sim::StepShape& s)
{
  if (s.cp == 1)
    return;
  const auto fail = [&](const std::string& what) {
    if (req.cp)
      throw io::InputError("--cp", "", fmt::format("{}: {}", s.cp, what));
    throw io::InputError(work.path, "/defaults/cp", fmt::format("{}: {}", s.cp, what));
  };
  const bool sp        = work.sequence_parallel && s.tp > 1;
  const std::int64_t n = 2ll * s.cp * (sp ? s.tp : 1);
  if (s.seq_len % n != 0)
    fail(fmt::format("sequence length {} of {} is not divisible by 2 x cp{} = {} (Megatron-Core splits each sequence "
                     "into 2 cp chunks{})",
                     s.seq_len, work.name, sp ? " x tp" : "", n, sp ? ", and sequence parallelism each share tp ways" : ""));
  if (s.ep > 1)
    fail(fmt::format("context parallelism with expert parallelism (ep {}) is not modelled", s.ep));
}

/// What --param sets besides the algorithm's own parameters: the run's expert-parallel degree and the workload's
/// sequence length and micro-batch count.
struct ShapeParams {
  std::optional<int> seq_len, micro_batches, expert_parallel;
};

/// The value `map` keeps for the file or preset `source` names, loaded the first time it is asked for. A load that
/// throws leaves nothing behind, so the next request that names the file fails with the same message.
template <class Map, class Load>
const typename Map::mapped_type& find_or_load(Map& map, const InputSource& source, const Load& load)
{
  const auto it = map.find(source.name);
  return it != map.end() ? it->second : map.emplace(source.name, load(source)).first->second;
}

const auto load_topology_of = [](const InputSource& s) { return load_topology(s); };
const auto load_workload_of = [](const InputSource& s) { return load_workload(s); };

/// The value `map` keeps for the in-memory document of `source` (by label and document object), converted the first
/// time.
template <class T, class Load>
const T& find_or_convert(InputCache::ByDocument<T>& map, const InputSource& source, const Load& load)
{
  auto key      = std::make_pair(source.name, source.document.get());
  const auto it = map.find(key);
  if (it != map.end())
    return it->second.second;
  return map.emplace(std::move(key), std::make_pair(source.document, load(source))).first->second.second;
}

/// The topology and workload (through the cache when there is one: files by name, documents by label and document
/// object) and the algorithm.
void load_inputs(const SimulateRequest& req, InputCache* cache, ResolvedRun& r)
{
  const bool use_cache = cache != nullptr;
  const auto cached    = [use_cache](auto& map, auto& documents, const InputSource& source, const auto& load) {
    using Value = std::decay_t<decltype(load(source))>;
    if (!use_cache)
      return Value(load(source));
    return Value(source.document ? find_or_convert(documents, source, load) : find_or_load(map, source, load));
  };
  InputCache none;
  InputCache& c   = use_cache ? *cache : none;
  // A document's location is its label: nothing to look up or keep.
  r.topology_file = use_cache && !req.topology.document
                        ? find_or_load(c.topology_files, req.topology, topology_location)
                        : topology_location(req.topology);
  r.topo = cached(c.topologies, c.document_topologies, req.topology, load_topology_of);
  r.work = cached(c.workloads, c.document_workloads, req.workload, load_workload_of);
  r.algo = algorithms::find_plan_algorithm(req.algorithm);
  if (r.algo == nullptr)
    throw io::InputError("--algorithm", "",
                         fmt::format("unknown algorithm {} (known: {})", io::echo(req.algorithm), known_algorithms()));
}

/// The request's overrides of the topology (bandwidth, latency, network model) and the fidelity.
void apply_overrides(const SimulateRequest& req, ResolvedRun& r)
{
  sim::Topology& topo = r.topo;
  if (req.bandwidth_gbps) // both overrides range-check their value (io/Limits.hpp)
    sim::override_inter_node_bandwidth(topo, *req.bandwidth_gbps);
  if (req.latency_us)
    sim::override_inter_node_latency(topo, *req.latency_us);
  if (req.network_model) {
    if (*req.network_model != "rdma" && *req.network_model != "tcp")
      throw io::InputError("--network-model", "", io::echo(*req.network_model) + " is not one of: rdma, tcp");
    topo.network_model = *req.network_model == "rdma" ? sim::NetworkModel::RDMA : sim::NetworkModel::TCP;
    if (topo.counts_transport_twice()) // refused in a file too (sim/platform/Topology.cpp)
      throw io::InputError("--network-model", "",
                           "tcp on a topology whose nccl.latency_model is \"nccl\": NCCL's latencies already carry the "
                           "transport (TCP too), and LV08's slow start per message would count it twice; keep rdma, "
                           "or give the topology nccl.latency_model \"links\"");
  }
  sim::Fidelity& fidelity = r.fidelity = sim::Fidelity::FAST;
  if (req.fidelity == "exact")
    fidelity = sim::Fidelity::EXACT;
  else if (req.fidelity != "fast")
    throw io::InputError("--fidelity", "", io::echo(req.fidelity) + " is not one of: exact, fast");
}

/// --param: workload overrides, then the algorithm's own parameters (unknown keys rejected).
ShapeParams read_params(const SimulateRequest& req, ResolvedRun& r)
{
  const auto* algo                = r.algo;
  const sim::Workload& work       = r.work;
  algorithms::ParamValues& params = r.params = algorithms::default_params(*algo);
  ShapeParams shape;
  auto& [seq_len, micro_batches, expert_parallel] = shape;
  for (const auto& [key, text] : req.params) {
    if (key == "ep") { // a run-shape degree like tp and pp, kept with the workload overrides (no new flag)
      expert_parallel = static_cast<int>(io::parse_integer(text, io::range::kParallelDegree, "--param ep"));
      continue;
    }
    if (key == "seq_len" || key == "micro_batches") {
      const bool seq = key == "seq_len";
      (seq ? seq_len : micro_batches) = static_cast<int>(
          io::parse_integer(text, seq ? io::range::kSeqLen : io::range::kMicroBatches, "--param " + key));
      continue;
    }
    const auto specs = algo->param_specs();
    const std::string& name = key; // clang 14 cannot capture a structured binding in a lambda
    const auto spec  = std::find_if(specs.begin(), specs.end(), [&](const auto& s) { return s.key == name; });
    if (spec == specs.end()) {
      std::string accepted;
      for (const auto& spec : algo->param_specs())
        accepted += (accepted.empty() ? "" : ", ") + spec.key;
      for (const auto& k : WORKLOAD_PARAMS)
        accepted += (accepted.empty() ? "" : ", ") + k;
      if (work.architecture && work.architecture->moe())
        accepted += ", ep";
      throw io::InputError("--param", "", fmt::format("{} is not a parameter of {} (accepted: {})", io::echo(key),
                                                      req.algorithm, accepted));
    }
    params[key] = algorithms::check_param(*spec, io::parse_number(text, spec->range, "--param " + key));
  }
  return shape;
}

/// The run's split (dp x tp x pp, ep) and the shape the plan is made for, checked for possibility. Every count was
/// range-checked where it was read (flags, experiment keys: io/Limits.hpp), so the products below fit in 64 bits;
/// checked here again for library callers.
void resolve_split(const SimulateRequest& req, const ShapeParams& given, ResolvedRun& r)
{
  const auto* algo             = r.algo;
  const sim::Topology& topo    = r.topo;
  const sim::Workload& work    = r.work;
  const sim::Fidelity fidelity = r.fidelity;
  const auto& seq_len          = given.seq_len;
  const auto& expert_parallel  = given.expert_parallel;
  io::check_range(req.gpus, io::range::kGpus, /*integer=*/true, "--gpus");
  if (req.tp)
    io::check_range(*req.tp, io::range::kParallelDegree, /*integer=*/true, "--tp");
  if (req.pp)
    io::check_range(*req.pp, io::range::kParallelDegree, /*integer=*/true, "--pp");
  if (req.global_batch)
    io::check_range(static_cast<double>(*req.global_batch), io::range::kBatch, /*integer=*/true, "--global-batch");
  if (req.micro_batch)
    io::check_range(static_cast<double>(*req.micro_batch), io::range::kBatch, /*integer=*/true, "--micro-batch");
  if (static_cast<std::int64_t>(req.gpus) > topo.max_gpus())
    throw io::InputError("--gpus", "", fmt::format("{} GPUs requested but topology {} has {} ({} nodes x {})", req.gpus,
                                                   topo.name, topo.max_gpus(), topo.max_nodes, topo.gpus_per_node));
  sim::StepShape& s = r.shape;
  s.gpus = req.gpus;
  s.tp   = req.tp.value_or(work.tp);
  s.pp   = req.pp.value_or(work.pp);
  if (algo->parallelism() != algorithms::Parallelism::PIPELINE && !req.pp)
    s.pp = std::min(s.pp, req.gpus);
  s.cp = resolve_cp(req, work, *algo);
  if (s.cp > 1) { // the GPUs are tp x cp x pp x dp (Megatron-Core's order tp-cp-dp-pp; sim/layout/RankLayout.hpp)
    if (static_cast<std::int64_t>(s.tp) * s.cp * s.pp > req.gpus)
      throw io::InputError("--cp", "", fmt::format("tp x cp x pp = {} x {} x {} needs more than the {} GPUs", s.tp,
                                                   s.cp, s.pp, req.gpus));
    if (req.gpus % (s.tp * s.cp * s.pp) != 0)
      throw io::InputError("--gpus", "", fmt::format("{} GPUs are not divisible by tp x cp x pp = {} x {} x {}",
                                                     req.gpus, s.tp, s.cp, s.pp));
  }
  if (static_cast<std::int64_t>(s.tp) * s.pp > req.gpus)
    throw io::InputError(req.tp ? "--tp" : "--pp", "", fmt::format("tp x pp = {} x {} needs more than the {} GPUs",
                                                                   s.tp, s.pp, req.gpus));
  if (req.gpus % (s.tp * s.pp) != 0)
    throw io::InputError("--gpus", "", fmt::format("{} GPUs are not divisible by tp x pp = {} x {}", req.gpus, s.tp, s.pp));
  if (algo->parallelism() == algorithms::Parallelism::PIPELINE && s.pp < 2)
    throw io::InputError("--pp", "", fmt::format("{} is a pipeline algorithm: it needs --pp >= 2", req.algorithm));
  s.dp            = req.gpus / (s.tp * s.cp * s.pp);
  s.vpp           = resolve_vpp(req, work, *algo, s.pp);
  if (req.pipeline_p2p && algo->parallelism() == algorithms::Parallelism::PIPELINE)
    throw io::InputError("--pipeline-p2p", "", fmt::format("{} runs GPipe with its sends beside the compute (AC-SGD's "
                                                           "send and receive streams); the option sets how a "
                                                           "data-parallel algorithm's pipeline sends", req.algorithm));
  s.pipeline_sends_block =
      req.pipeline_p2p ? *req.pipeline_p2p == sim::BLOCKING_PIPELINE_P2P : !work.pipeline_p2p_overlapped;
  s.gpus_per_node = topo.gpus_per_node;
  s.nodes         = (req.gpus + topo.gpus_per_node - 1) / topo.gpus_per_node;
  s.params        = work.params;
  // The workload's default ep is its recipe's; like the default pp it yields to a run too small for it (the largest
  // degree dividing both it and dp), and to tensor parallelism and the pipeline algorithms, which expert parallelism
  // is not modelled with. An explicit --param ep is checked as given. config.ep reports the degree simulated.
  s.ep = expert_parallel.value_or(
      s.tp > 1 || s.cp > 1 || algo->parallelism() == algorithms::Parallelism::PIPELINE ? 1 : std::gcd(work.ep, s.dp));
  check_expert_parallel(s, work, *algo);
  s.params_per_rank = static_cast<std::uint64_t>(work.params_held(s.ep)) / static_cast<std::uint64_t>(s.tp * s.pp);
  s.architecture  = work.architecture;
  s.seq_len       = seq_len.value_or(work.seq_len);
  s.hidden        = work.hidden;
  s.layers        = work.layers;
  s.tensors       = work.tensors;
  s.grad_bytes    = work.grad_bytes;
  s.merge_node_pairs = fidelity == sim::Fidelity::FAST && topo.node_pair_flows_mergeable();
  s.overlap          = overlap_settings(req, work);
  check_context_parallel(req, work, s);
}

/// The global batch (and the rule that set it), the micro-batch and the accumulation.
void resolve_batch(const SimulateRequest& req, const ShapeParams& given, ResolvedRun& r)
{
  const sim::Topology& topo = r.topo;
  const sim::Workload& work = r.work;
  sim::StepShape& s         = r.shape;
  const auto& micro_batches = given.micro_batches;
  const std::uint64_t dp = static_cast<std::uint64_t>(s.dp);
  // Which rule set the global batch, reported in config.batch_rule: the flag, the workload's fixed batch, or its run
  // rule that grows the batch with data parallelism (SDP4Bit's throughput runs, Appendix B).
  std::string& batch_rule = r.batch_rule;
  if (req.global_batch) {
    s.global_batch = *req.global_batch;
    batch_rule     = "--global-batch";
  } else if (work.grad_accumulation > 0) {
    const std::uint64_t mb = req.micro_batch.value_or(work.micro_batch);
    s.global_batch         = dp * mb * static_cast<std::uint64_t>(work.grad_accumulation);
    batch_rule = fmt::format("workload run rule: dp x micro-batch x accumulation {} = {} x {} x {} ({})",
                             work.grad_accumulation, dp, mb, work.grad_accumulation, work.batch_source);
  } else {
    s.global_batch = work.global_batch;
    batch_rule     = fmt::format("workload default global batch {} ({})", work.global_batch, work.batch_source);
  }
  if (s.global_batch == 0)
    throw io::InputError("--global-batch", "", fmt::format("workload {} has no default batch: give --global-batch", work.name));
  if (micro_batches) {
    if (s.global_batch % (dp * *micro_batches) != 0)
      throw io::InputError("--param", "", fmt::format("micro_batches={}: global batch {} is not divisible by dp x micro_batches = {} x {}",
                                                      *micro_batches, s.global_batch, dp, *micro_batches));
    s.micro_batch = s.global_batch / (dp * *micro_batches);
  } else {
    s.micro_batch = req.micro_batch.value_or(work.micro_batch != 0 ? work.micro_batch : s.global_batch / dp);
  }
  if (s.micro_batch == 0 || s.global_batch % (dp * s.micro_batch) != 0)
    throw io::InputError("--global-batch", "",
                         fmt::format("global batch {} is not divisible by data-parallel GPUs x micro-batch = {} x {}",
                                     s.global_batch, dp, s.micro_batch));
  s.grad_accumulation = static_cast<int>(s.global_batch / (dp * s.micro_batch));
  {
    // The gradient group's peers on the first node: its dp x cp replicas, tp ranks apart (sim/layout/RankLayout.hpp).
    std::map<int, int> per_node;
    for (int d = 0; d < s.grad_group(); ++d)
      per_node[(d * s.tp) / topo.gpus_per_node]++;
    s.dp_per_node = per_node.begin()->second;
  }
}

/// Whether `stage` can run with the run's split: stages 2 and 3 not with a pipeline (DeepSpeed runs pipeline
/// parallelism with ZeRO-1 only: its pipeline engine asserts the stage is below 2), stage 3 not with expert
/// parallelism, which ccsim does not model together.
bool zero_stage_fits_split(int stage, const sim::StepShape& s) { return !(stage >= 2 && s.pp > 1) && !(stage == 3 && s.ep > 1); }

/// The ZeRO stage: --zero as given (checked); else the workload's defaults.zero where the algorithm supports it and
/// the split allows it (a recipe's stage, like its vpp, applies where it can: a workload that trains with ZeRO-3 still
/// runs 1-bit Adam, which has no stages, at stage 0); else the first stage the algorithm's descriptor lists (what it
/// ran before stages could be chosen).
void resolve_zero(const SimulateRequest& req, ResolvedRun& r)
{
  const auto& d = algorithms::algorithm_named(r.algo->name());
  sim::StepShape& s = r.shape;
  if (!req.zero) {
    const auto& recipe = r.work.zero;
    if (recipe && d.supports_zero_stage(*recipe) && zero_stage_fits_split(*recipe, s)) {
      s.zero_stage = *recipe;
      r.zero_given = true; // the report names the stage the workload chose
      return;
    }
    s.zero_stage = d.default_zero_stage();
    return;
  }
  const int stage = static_cast<int>(io::check_range(*req.zero, io::range::kZeroStage, /*integer=*/true, "--zero"));
  if (!d.supports_zero_stage(stage)) {
    std::string stages;
    for (const int z : d.zero_stages.empty() ? std::vector<int>{0} : d.zero_stages)
      stages += (stages.empty() ? "" : ", ") + std::to_string(z);
    throw io::InputError("--zero", "", fmt::format("{} does not run ZeRO stage {} (it supports: {})", d.name, stage, stages));
  }
  if (stage >= 2 && s.pp > 1)
    throw io::InputError("--zero", "", fmt::format("stage {} with a pipeline (pp {}) is not modelled: DeepSpeed runs "
                                                   "pipeline parallelism with ZeRO-1 only", stage, s.pp));
  if (stage == 3 && s.ep > 1)
    throw io::InputError("--zero", "", fmt::format("stage 3 with expert parallelism (ep {}) is not modelled", s.ep));
  s.zero_stage = stage;
  r.zero_given = true;
}

/// The algorithm's plan of the step.
void plan_step(const SimulateRequest& req, ResolvedRun& r)
{
  const auto* algo        = r.algo;
  const sim::StepShape& s = r.shape;
  const auto& params      = r.params;
  try {
    r.plan = algo->plan(s, params);
  } catch (const std::invalid_argument& e) {
    throw io::InputError("--algorithm", "", fmt::format("{}: {}", req.algorithm, e.what()));
  }
}

/// The memory per GPU: a run that does not fit even with activation recomputation is an error (unless --allow-oom).
void check_memory(const SimulateRequest& req, ResolvedRun& r)
{
  const auto* algo          = r.algo;
  const sim::Topology& topo = r.topo;
  sim::Workload& work       = r.work;
  sim::StepShape& s         = r.shape;
  // --recompute over the workload's defaults.recompute: selective changes what the memory model stores (and the
  // compute what it reruns), so it is the run's recipe from here on; full also where the run would fit without it.
  const bool forced_full    = req.recompute == std::optional<std::string>("full");
  const bool recompute_none = req.recompute == std::optional<std::string>("none");
  // An explicit --recompute selective is the recipe the user chose, as none is: a run that fits only with full
  // recomputation is refused (or, with --allow-oom, run as asked), never upgraded to full behind their back.
  const bool asked_selective = req.recompute == std::optional<std::string>("selective");
  if (req.recompute) {
    const auto mode = sim::parse_recompute(*req.recompute);
    if (!mode)
      throw io::InputError("--recompute", "", io::echo(*req.recompute) + " is not one of: none, selective, full");
    if (*mode == sim::Recompute::SELECTIVE && !work.architecture)
      throw io::InputError("--recompute", "",
                           fmt::format("selective recomputation needs workload {} to have an architecture block (the "
                                       "attention core it reruns)", work.name));
    work.recompute = *mode;
  }
  const auto& mem = r.memory = algorithms::memory_footprint(*algo, work, s);
  const double need_plain = mem.total_bytes(false), need_recompute = mem.total_bytes(true);
  double headroom = topo.gpu.memory_headroom_bytes;
  if (req.memory_headroom_gb) {
    headroom = io::check_range(*req.memory_headroom_gb, io::range::kMemoryHeadroomGb, false, "--memory-headroom-gb") * 1e9;
    if (topo.gpu.memory_bytes && headroom >= *topo.gpu.memory_bytes)
      throw io::InputError("--memory-headroom-gb", "",
                           fmt::format("{:g} GB leaves nothing of the {:g} GB GPU for the model", headroom / 1e9,
                                       *topo.gpu.memory_bytes / 1e9));
  }
  r.memory_fit = judge_memory(need_plain, need_recompute, topo.gpu.memory_bytes, headroom);
  const std::string cp_text = s.cp > 1 ? fmt::format(" cp {}", s.cp) : "";
  if (topo.gpu.memory_bytes) {
    const double cap = *topo.gpu.memory_bytes;
    if (r.memory_fit.verdict == MemoryVerdict::FITS_WITH_RECOMPUTATION && (recompute_none || asked_selective) &&
        !req.allow_oom)
      throw io::InputError(
          "--recompute", "",
          fmt::format("{}: {} on {} with tp {} pp {}{} dp {} needs {:.1f} GB per GPU {} but the GPU has {:.1f} GB for it "
                      "({:.0f} GB less {:.3g} GB headroom): {}, raise --tp or --pp, or pass --allow-oom",
                      *req.recompute, algo->name(), work.name, s.tp, s.pp, cp_text, s.dp, need_plain / 1e9,
                      recompute_none ? "without activation recomputation" : "with selective recomputation",
                      (cap - headroom) / 1e9, cap / 1e9, headroom / 1e9,
                      recompute_none ? "recompute" : "recompute every layer (--recompute full)"));
    if (r.memory_fit.verdict == MemoryVerdict::DOES_NOT_FIT && !req.allow_oom)
      throw io::InputError(
          r.topology_file, "/gpu/memory_gb",
          fmt::format("{} on {} with tp {} pp {}{} dp {} needs {:.1f} GB per GPU even with activation recomputation "
                      "(weights {:.1f}, gradients {:.1f}, optimizer {:.1f}, compression buffers {:.1f}, activations "
                      "{:.1f}) but the GPU has {:.0f} GB{}: raise --tp or --pp{}, or pass --allow-oom",
                      algo->name(), work.name, s.tp, s.pp, cp_text, s.dp, need_recompute / 1e9, mem.weights_bytes / 1e9,
                      mem.gradients_bytes / 1e9, mem.optimizer_bytes / 1e9, mem.compression_bytes / 1e9,
                      mem.activations_recompute_bytes / 1e9, cap / 1e9,
                      headroom > 0 ? fmt::format(" less {:.3g} GB headroom", headroom / 1e9) : "",
                      algo->parallelism() != algorithms::Parallelism::SHARDED_DATA_PARALLEL ? ", use a sharded algorithm"
                      : s.zero_stage < 3 && algorithms::algorithm_named(algo->name()).supports_zero_stage(3)
                          ? ", shard the weights too (--zero 3)"
                          : ""));
  }
  r.recompute =
      (r.memory_fit.verdict == MemoryVerdict::FITS_WITH_RECOMPUTATION && !recompute_none && !asked_selective) ||
      forced_full || work.recompute == sim::Recompute::FULL;
  // The recomputed forward passes are charged where compute is priced from the model (FLOPs over a sustained rate, or
  // per operator: a workload from its architecture counts no recomputation), when asked for (--recompute), or when
  // the workload's recipe recomputes (defaults.recompute: full, or selective, the attention core only). The papers'
  // workloads keep their calibrated compute, fitted to the papers' measured steps, which already hold whatever their
  // systems recomputed (docs/overlap.md).
  const bool full =
      forced_full || work.recompute == sim::Recompute::FULL || (r.recompute && work.architecture.has_value());
  s.recompute     = full ? sim::Recompute::FULL : work.recompute;
  s.sequence_parallel = work.sequence_parallel && s.tp > 1;
}

/// Compute priced per operator runs the GEMMs in a format the GPU's tensor cores must have.
void check_precision(ResolvedRun& r)
{
  const sim::Topology& topo = r.topo;
  const sim::Workload& work = r.work;
  const sim::StepShape& s   = r.shape;
  if (sim::priced_per_operator(topo, work, s)) {
    const sim::Precision p = sim::compute_split(topo, work, s).precision;
    if (!topo.gpu.compute->rate(p)) {
      std::string formats;
      for (const auto& [format, rate] : topo.gpu.compute->rates)
        formats += (formats.empty() ? "" : ", ") + sim::to_string(format);
      throw io::InputError(work.path, "/defaults/precision",
                           fmt::format("{} GEMMs, but the {} of topology {} runs {} (gpu.compute.tensor_tflops)",
                                       sim::to_string(p), topo.gpu.name, topo.name, formats));
    }
  }
}

/// The training stack: --framework over the workload's defaults.framework. Where compute is priced per operator, a
/// stack other than Megatron-LM needs its share of the rate in the GPU's compute block (gpu.compute.framework_efficiency).
void resolve_framework(const SimulateRequest& req, ResolvedRun& r)
{
  sim::Workload& work = r.work;
  if (req.framework) {
    if (!sim::is_known_framework(*req.framework))
      throw io::InputError("--framework", "", fmt::format("{} is not one of: {}", io::echo(*req.framework),
                                                          fmt::join(sim::known_frameworks(), ", ")));
    work.framework = *req.framework;
  }
  if (work.framework == sim::REFERENCE_FRAMEWORK)
    return;
  if (work.tp_overlap && !req.tp_overlap)
    throw io::InputError("--framework", "", fmt::format("{}: workload {} sets defaults.tp_overlap, Megatron-Core's "
                                                        "--tp-comm-overlap, which {} does not run: add --tp-overlap off",
                                                        work.framework, work.name, work.framework));
  if (sim::priced_per_operator(r.topo, work, r.shape))
    (void)sim::framework_efficiency(r.topo, work); // refused here, before the run, where the GPU has no share
}

/// Megatron-Core's tensor-parallel communication overlap: --tp-overlap on|off as given, else the workload's
/// defaults.tp_overlap where it applies (tp > 1). Asked for, it needs what Megatron and ccsim's model of it need: tp > 1
/// and sequence parallelism (Megatron asserts both: megatron/training/arguments.py), a dense layer, and GEMM times
/// from the per-operator model (what each collective hides under). Runs after check_memory, which settles sequence
/// parallelism and recomputation.
void resolve_tp_overlap(const SimulateRequest& req, ResolvedRun& r)
{
  const sim::Workload& work = r.work;
  sim::StepShape& s         = r.shape;
  if (!req.tp_overlap) {
    s.tp_overlap = work.tp_overlap && s.tp > 1 && sim::priced_per_operator(r.topo, work, s);
    return;
  }
  s.tp_overlap = *req.tp_overlap;
  if (!s.tp_overlap)
    return;
  if (work.framework != sim::REFERENCE_FRAMEWORK)
    throw io::InputError("--tp-overlap", "", fmt::format("is Megatron-Core's --tp-comm-overlap, which {} does not run",
                                                         work.framework));
  if (s.tp < 2)
    throw io::InputError("--tp-overlap", "", fmt::format("overlaps tensor-parallel communication: give --tp >= 2 (the "
                                                         "run has tp {})", s.tp));
  if (!work.architecture)
    throw io::InputError("--tp-overlap", "", fmt::format("needs workload {} to have an architecture block (the GEMMs "
                                                         "the collectives overlap)", work.name));
  if (work.architecture->moe())
    throw io::InputError("--tp-overlap", "", fmt::format("is modelled for dense layers only; {} is a mixture of "
                                                         "experts", work.name));
  if (!s.sequence_parallel)
    throw io::InputError("--tp-overlap", "", fmt::format("needs sequence parallelism, as Megatron does: set "
                                                         "defaults.sequence_parallel in workload {}", work.name));
  if (!sim::priced_per_operator(r.topo, work, s))
    throw io::InputError("--tp-overlap", "", fmt::format("needs each GEMM's time from the per-operator model, but {} "
                                                         "on {} is priced from a profile or a sustained rate",
                                                         work.name, r.topo.name));
}

/// Stragglers: every GPU's compute speed (its node's, times its own) and the random per-step noise.
void draw_stragglers(const SimulateRequest& req, ResolvedRun& r)
{
  const sim::Topology& topo = r.topo;
  const sim::StepShape& s   = r.shape;
  sim::StragglerModel& stragglers = r.stragglers;
  stragglers.cv   = io::check_range(req.straggler_cv, io::range::kStragglerCv, false, "--straggler-cv");
  stragglers.seed = req.straggler_seed;
  for (const auto& [node, o] : topo.nodes)
    if (o.compute_scale != 1)
      for (int g = node * topo.gpus_per_node; g < std::min(s.gpus, (node + 1) * topo.gpus_per_node); ++g)
        stragglers.rank_scale[g] = o.compute_scale;
  for (const auto& [rank, factor] : req.slow_gpus) {
    if (rank >= s.gpus)
      throw io::InputError("--slow-gpu", "", fmt::format("rank {} is not below --gpus {}", rank, s.gpus));
    stragglers.rank_scale[rank] = factor * (stragglers.rank_scale.count(rank) ? stragglers.rank_scale[rank] : 1);
  }
  r.straggling = stragglers.active() ? sim::straggler_effect(stragglers, s.gpus) : sim::StragglerEffect{};
}
} // namespace

void preload_inputs(const SimulateRequest& req, InputCache& cache)
{
  // Only the cache's maps are filled: nothing is copied out per request (advise --search preloads one per candidate).
  // Each file on its own: one that fails to load is left out, and the child that needs it fails with the same message.
  const auto keep = [](auto& map, auto& documents, const InputSource& source, const auto& load) {
    try {
      if (source.document)
        find_or_convert(documents, source, load);
      else
        find_or_load(map, source, load);
    } catch (const std::exception&) {
    }
  };
  if (!req.topology.document) {
    try {
      find_or_load(cache.topology_files, req.topology, topology_location);
    } catch (const std::exception&) {
    }
  }
  keep(cache.topologies, cache.document_topologies, req.topology, load_topology_of);
  keep(cache.workloads, cache.document_workloads, req.workload, load_workload_of);
  // The registry of algorithms is built on its first lookup: here, once, rather than in every child.
  (void)algorithms::find_plan_algorithm(req.algorithm);
}

ResolvedRun resolve_run(const SimulateRequest& req, InputCache* cache)
{
  ResolvedRun r;
  load_inputs(req, cache, r);
  apply_overrides(req, r);
  const ShapeParams given = read_params(req, r);
  resolve_split(req, given, r);
  resolve_batch(req, given, r);
  resolve_zero(req, r);
  check_memory(req, r);
  check_precision(r);
  resolve_framework(req, r);
  resolve_tp_overlap(req, r);
  // The plan once the shape is whole: recomputation and sequence parallelism change the tensor-parallel traffic.
  plan_step(req, r);
  draw_stragglers(req, r);
  r.links = req.links;
  r.trace = req.trace;
  r.fidelity_name = req.fidelity;
  return r;
}

} // namespace ccsim::api
