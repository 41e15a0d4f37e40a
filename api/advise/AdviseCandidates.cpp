// The family, its baseline and the candidates of `advise`; see AdviseCandidates.hpp.
#include "api/advise/AdviseCandidates.hpp"

#include "algorithms/PlanAlgorithm.hpp"
#include "algorithms/Registry.hpp"
#include "api/advise/AdviseFilters.hpp"
#include "api/advise/ShapeSearch.hpp"
#include "api/run/ResolvedRun.hpp"
#include "io/JsonInput.hpp"
#include "sim/compute/OperatorCost.hpp"

#include <algorithm>
#include <optional>

namespace ccsim::api {

namespace {
/// The global batch a search compares splits at: the flag's, the workload's, or what its run rule gives the workload's
/// default split (a batch that grows with dp would otherwise change with the split, and with it the convergence the
/// evidence measured). 0: none (each split's own).
std::uint64_t search_batch(const SimulateRequest& shape, const sim::Workload& work)
{
  std::uint64_t batch = shape.global_batch.value_or(work.global_batch);
  if (batch == 0 && work.grad_accumulation > 0)
    batch = static_cast<std::uint64_t>(std::max(1, shape.gpus / std::max(1, work.tp * work.pp))) * work.micro_batch *
            static_cast<std::uint64_t>(work.grad_accumulation);
  return batch;
}

/// Without search, one split: the filters give it.
void apply_split_filters(const AdviseRequest& in, SimulateRequest& shape)
{
  if (in.tp.size() > 1 || in.pp.size() > 1 || in.zero.size() > 1 || in.vpp.size() > 1)
    throw io::InputError(in.tp.size() > 1   ? "--tp"
                         : in.pp.size() > 1 ? "--pp"
                         : in.zero.size() > 1 ? "--zero"
                                              : "--vpp",
                         "", "several values need --search");
  if (!in.vpp.empty())
    shape.vpp = in.vpp.front(); // simulate's own check refuses it where it cannot apply (pp 1, a pipeline algorithm)
  if (!in.tp.empty())
    shape.tp = in.tp.front();
  if (!in.pp.empty())
    shape.pp = in.pp.front();
}

bool allowed(const std::vector<int>& only, int v)
{
  return only.empty() || std::find(only.begin(), only.end(), v) != only.end();
}

/// The model chunks per stage tried at `pp` stages of `layers`: those of `only` (every whole number of layers per
/// chunk, 1 included, when empty) that cut the stage's layers, or with `embedding_slots` its slots (the embedding and
/// the output layer taking one each, sim::chunks_are_whole), into whole chunks; {1} without a pipeline, or for an
/// algorithm that pipelines its own way (GPipe).
std::vector<int> vpp_for(int layers, int pp, bool interleaves, bool embedding_slots, const std::vector<int>& only)
{
  if (pp < 2 || !interleaves || !sim::chunks_are_whole(layers, pp, 1, embedding_slots))
    return {1};
  std::vector<int> out;
  for (int v = 1; v <= (layers + 2) / pp; ++v) // a stage holds at most (layers + 2) / pp layers or slots
    if (sim::chunks_are_whole(layers, pp, v, embedding_slots) && allowed(only, v))
      out.push_back(v);
  return out;
}

/// The ZeRO stages `algorithm` is tried at: those of `only` (every one when empty) that its descriptor runs; none
/// (its own default) when it runs none of them.
std::vector<int> zero_stages_for(const std::string& algorithm, const std::vector<int>& only)
{
  std::vector<int> out;
  for (const int z : algorithms::algorithm_named(algorithm).zero_stages)
    if (allowed(only, z))
      out.push_back(z);
  return out;
}
} // namespace

AdviseCandidates advise_candidates(const AdviseRequest& in, const sim::Workload& work)
{
  AdviseCandidates out;
  // Which family fits: the pipeline algorithms (AQ-SGD's) serve workloads pipelined without tensor parallelism, as
  // in AQ-SGD's runs (gpt2-xl, deberta-v2-xxl); a Megatron model split tp x pp (gpt-13b: 4 x 2, SDP4Bit §5) is offered
  // the data-parallel and sharded families, which pipeline its stages themselves.
  const bool pipelined = work.pp > 1 && work.tp == 1;
  out.algorithms       = advised_algorithms(in.algorithms, pipelined, work.name);
  // The baseline: the reference algorithm of the layout such a workload trains with (its descriptor says so): a
  // pipeline's, a decoder-only (GPT) model's sharded data parallelism's, else plain data parallelism's.
  using algorithms::Parallelism;
  const auto layout = pipelined             ? Parallelism::PIPELINE
                      : work.decoder_only() ? Parallelism::SHARDED_DATA_PARALLEL
                                            : Parallelism::DATA_PARALLEL;
  out.baseline         = algorithms::reference_algorithm(layout).name;
  out.search           = in.search;
  out.shape            = in.shape;
  if (out.search && out.shape.micro_batch)
    throw io::InputError("--micro-batch", "", "--search chooses the micro-batch: give one or the other");
  if (out.search && out.shape.cp.value_or(1) > 1) // its splits are dp x tp x pp (api/advise/ShapeSearch.hpp)
    throw io::InputError("--cp", "", "--search does not search context parallelism: give --cp without --search");
  out.filtered    = !in.tp.empty() || !in.pp.empty();
  const auto topo = out.search || out.filtered ? load_topology(in.topology) : sim::Topology{};
  if (out.filtered)
    check_split_filters(in.tp, in.pp, topo, work, out.shape.gpus, in.topology.name);
  if (!out.search)
    apply_split_filters(in, out.shape);

  const std::uint64_t batch = out.search ? search_batch(out.shape, work) : 0;
  for (const auto& name : out.algorithms) {
    SimulateRequest req = out.shape;
    if (batch > 0)
      req.global_batch = batch;
    req.topology  = in.topology;
    req.workload  = in.workload;
    req.algorithm = name;
    // --pipeline-p2p sets how a data-parallel algorithm's pipeline sends; the pipeline algorithms run GPipe, whose
    // sends always overlap, and refuse it (api/run/ResolvedRun.cpp): they are ranked without it.
    if (algorithms::find_plan_algorithm(name)->parallelism() == algorithms::Parallelism::PIPELINE)
      req.pipeline_p2p = std::nullopt;
    const auto stages = zero_stages_for(name, in.zero);
    if (!out.search) {
      if (!in.zero.empty() && !stages.empty())
        req.zero = stages.front();
      out.list.push_back({name, req});
      continue;
    }
    const bool pipe = algorithms::find_plan_algorithm(name)->parallelism() == algorithms::Parallelism::PIPELINE;
    for (const auto& c : search_candidates(topo, work, out.shape.gpus, batch, pipe)) {
      if (!allowed(in.tp, c.tp) || !allowed(in.pp, c.pp))
        continue;
      req.tp = c.tp, req.pp = c.pp, req.micro_batch = c.micro_batch;
      // The stages at this split: the algorithm's own (none listed, or one given), else each of them; DeepSpeed runs a
      // pipeline with ZeRO-1 at most (api/run/ResolvedRun.cpp).
      std::vector<std::optional<int>> zeros;
      if (stages.size() < 2)
        zeros.push_back(!in.zero.empty() && !stages.empty() && !(stages.front() >= 2 && c.pp > 1)
                            ? std::optional<int>(stages.front())
                            : std::nullopt);
      else
        for (const int z : stages)
          if (!(z >= 2 && c.pp > 1))
            zeros.push_back(z);
      const auto vpps = vpp_for(work.layers, c.pp, !pipe, work.architecture.has_value(), in.vpp);
      // --tp-overlap applies to the splits with tensor parallelism; a tp-1 split runs without it (nothing to overlap).
      req.tp_overlap = c.tp > 1 ? out.shape.tp_overlap : std::nullopt;
      for (const auto& z : zeros)
        for (const int v : vpps) {
          req.zero = z;
          req.vpp  = c.pp > 1 && !pipe ? std::optional<int>(v) : std::nullopt;
          out.list.push_back({name, req});
          ++out.splits[name];
        }
      req.zero.reset();
      req.vpp.reset();
    }
  }
  if (!out.search)
    std::stable_partition(out.list.begin(), out.list.end(),
                          [&](const AdviseCandidate& c) { return c.algorithm == out.baseline; });
  return out;
}

} // namespace ccsim::api
