// `simulate` as a library call: simulate a resolved run on the step engine and shape the result as the typed report
// (whose JSON is docs/design/DESIGN.md's). See Simulation.hpp.
#include "api/run/Simulation.hpp"

#include "api/run/TraceJson.hpp"
#include "api/run/OperatorsJson.hpp"
#include "api/run/Intervals.hpp"
#include "api/run/ReportChecks.hpp"
#include "api/run/ReportJson.hpp"

#include "sim/collective/MessageCount.hpp"
#include "sim/engine/StepEngine.hpp"
#include "sim/model/TrainingRecipe.hpp"
#include "sim/platform/Platform.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <stdexcept>

namespace ccsim::api {

namespace {
PhaseResult phase_result(const sim::PhaseReport& r, double samples)
{
  PhaseResult p;
  p.name                      = r.name;
  p.fraction                  = r.fraction;
  p.step_time_s               = r.step_time_s;
  p.samples_per_s             = r.step_time_s > 0 ? samples / r.step_time_s : 0;
  p.breakdown                 = {r.compute_s, r.comm_s, r.exposed_comm_s, r.compression_s, r.optimizer_s,
                                 r.allreduce_s * 1e3};
  p.pipeline_forward_comm_ms  = r.pipeline_forward_comm_s * 1e3;
  p.pipeline_backward_comm_ms = r.pipeline_backward_comm_s * 1e3;
  p.bytes_per_gpu             = {r.inter_node_bytes_per_gpu, r.intra_node_bytes_per_gpu};
  return p;
}

/// config.overlap: what the step overlaps, or nothing when it overlaps nothing (the papers' systems).
std::optional<std::string> overlap_description(const sim::OverlapSettings& o, bool tp_overlap)
{
  const bool bucketed = o.grad_reduction == sim::GradReduction::BUCKETED;
  const std::string tp = tp_overlap ? "tensor-parallel all-gathers and reduce-scatters beside their GEMMs" : "";
  if (!bucketed && !o.param_prefetch)
    return tp_overlap ? std::optional<std::string>(tp) : std::nullopt;
  std::string what = bucketed ? "bucketed gradient reduction under the last backward pass" : "";
  if (o.param_prefetch)
    what += std::string(bucketed ? ", " : "") + "weight all-gather prefetched under the first forward pass";
  return fmt::format("{} ({:g} MB buckets){}", what, static_cast<double>(o.bucket_bytes) / 1e6,
                     tp_overlap ? ", " + tp : "");
}

/// The GPU's dense FLOP/s for the run's GEMM format (gpu.compute's rate for it); where the GPU's tensor cores have no
/// rate for the format, the highest it has and gpu.peak_tflops: a bound no kernel of any format passes.
double dense_peak_flops(const sim::Topology& topo, sim::Precision precision)
{
  if (topo.gpu.compute)
    if (const auto* rate = topo.gpu.compute->rate(precision))
      return rate->peak_flops;
  double peak = topo.gpu.peak_flops;
  if (topo.gpu.compute)
    for (const auto& [format, rate] : topo.gpu.compute->rates)
      peak = std::max(peak, rate.peak_flops);
  return peak;
}

/// The presets' out-of-sample errors, and, where the topology carries its own calibration (`ccsim calibrate` wrote
/// it), that calibration's residuals as rows of this topology: the run counts as calibrated and its range draws from
/// them (issue 48). They time collectives alone: communication rows of a 1 x 1 split, for the nccl-tests benchmark.
PredictionErrors errors_with_own_calibration(const sim::Topology& topo, const RunConfig& c)
{
  if (!topo.calibration)
    return default_prediction_errors();
  PredictionErrors errors = default_prediction_errors();
  const auto& cal         = *topo.calibration;
  for (std::size_t i = 0; i < cal.error_pct.size(); ++i) {
    ErrorRow row;
    row.regime    = {c.topology, "nccl-tests", "nccl-tests", cal.gpus, 1, 1, cal.inter_node_gbps};
    row.table     = "calibrate";
    row.label     = fmt::format("size {}", i + 1);
    row.metric    = "allreduce_ms";
    row.error_pct = cal.error_pct[i];
    row.kind      = Holdout::IN_SAMPLE;
    errors.rows.push_back(std::move(row));
  }
  return errors;
}

/// The sizes a workload's architecture implies at this run's sequence length, micro-batch and tp.
ModelResult model_result(const sim::Workload& work, const sim::StepShape& s)
{
  const auto& arch  = *work.architecture;
  const double seq  = s.seq_len;
  const auto flops  = sim::flops_per_token(arch, s.seq_len);
  ModelResult m;
  m.params          = work.params;
  m.active_params   = sim::parameter_counts(arch).active;
  m.tensors         = static_cast<std::uint64_t>(work.tensors);
  m.attention_flops = arch.attention_flops == sim::AttentionFlops::CAUSAL ? "causal" : "full";
  m.flops_per_sample              = work.flops_per_sample_at(s.seq_len);
  m.flops_per_sample_causal       = flops.causal * seq;
  m.flops_per_sample_full         = flops.full * seq;
  m.flops_per_sample_no_attention = flops.no_attention * seq;
  // Per GPU: a context-parallel rank holds seq_len / cp tokens of each sequence (algorithms/MemoryFootprint.cpp).
  m.activation_bytes_per_layer = sim::activation_bytes_per_layer(arch, s.micro_batch, s.seq_len / std::max(1, s.cp),
                                                                 s.tp, work.sequence_parallel);
  return m;
}
} // namespace

SimulationReport simulate(const ResolvedRun& run)
{
  const auto& topo       = run.topo;
  const auto& work       = run.work;
  const auto& s          = run.shape;
  const auto& stragglers = run.stragglers;
  const auto& straggling = run.straggling;
  sim::StepOptions options;
  options.compute_factor  = straggling.compute_factor;
  options.kernel_factor   = straggling.kernel_factor;
  if (stragglers.active()) {
    options.rank_inverse_scale = straggling.inverse_scale;
    options.noise_factor       = straggling.noise_factor;
  }
  options.busiest_links   = run.links;
  options.links_over_time = run.links || run.trace; // the trace's NIC counter tracks come from the same samples
  options.trace_spans     = run.trace;
  const std::uint64_t planned = sim::planned_messages(run.plan, s, run.fidelity, run.topo);
  report_child_progress(0, planned);
  options.on_progress = [planned](std::uint64_t done) { report_child_progress(done, planned); };
  // A platform of only the nodes the step touches (sim/platform/Platform.hpp), where the step can be run again in a
  // fresh child should it touch more than were built; results are the same either way.
  options.node_slots = may_run_again_fresh() ? sim::platform_node_slots(run.topo, s.gpus) : 0;
  const auto report  = [&] {
    try {
      return sim::simulate_step(run.topo, work, run.plan, s, run.fidelity, options);
    } catch (const sim::OutOfNodeSlots& e) {
      throw RunAgainFresh(e.what());
    }
  }();

  // --- whole-run averages weight each phase by its share of steps
  double total_fraction = 0, step = 0;
  for (const auto& p : report.phases)
    total_fraction += p.fraction;
  SimulationReport out;
  sim::PhaseReport avg;
  for (const auto& p : report.phases) {
    const double w = p.fraction / total_fraction;
    step += w * p.step_time_s;
    avg.compute_s += w * p.compute_s;
    avg.comm_s += w * p.comm_s;
    avg.exposed_comm_s += w * p.exposed_comm_s;
    avg.compression_s += w * p.compression_s;
    avg.optimizer_s += w * p.optimizer_s;
    avg.allreduce_s += w * p.allreduce_s;
    avg.inter_node_bytes_per_gpu += w * p.inter_node_bytes_per_gpu;
    avg.intra_node_bytes_per_gpu += w * p.intra_node_bytes_per_gpu;
    out.phases.push_back(phase_result(p, static_cast<double>(s.global_batch)));
  }
  out.samples_per_s  = static_cast<double>(s.global_batch) / step;
  out.step_time_s    = step;
  out.tflops_per_gpu = out.samples_per_s * work.flops_per_sample_at(s.seq_len) / s.gpus / 1e12;
  out.breakdown = {avg.compute_s, avg.comm_s, avg.exposed_comm_s, avg.compression_s, avg.optimizer_s,
                   avg.allreduce_s * 1e3};
  out.bytes_per_gpu = {avg.inter_node_bytes_per_gpu, avg.intra_node_bytes_per_gpu};

  const auto& mem       = run.memory;
  out.memory_gb_per_gpu = mem.total_bytes(run.recompute) / 1e9;
  auto& m               = out.memory;
  m.fit                 = run.memory_fit;
  m.activation_recomputation      = run.recompute;
  m.weights_gb                    = mem.weights_bytes / 1e9;
  m.gradients_gb                  = mem.gradients_bytes / 1e9;
  m.optimizer_states_gb           = mem.optimizer_bytes / 1e9;
  m.compression_buffers_gb        = mem.compression_bytes / 1e9;
  m.optimizer_step_temporaries_gb = mem.step_transient_bytes / 1e9;
  m.activations_gb                = mem.activations_bytes / 1e9;
  m.activations_recomputed_gb     = mem.activations_recompute_bytes / 1e9;
  m.activations_note              = mem.activations_note;
  if (work.architecture)
    out.model = model_result(work, s);
  if (report.compute.operators)
    out.operators = operators_result(*report.compute.operators, report.compute.precision, s.recompute);

  auto& c                       = out.config;
  c.topology                    = topo.name;
  c.workload                    = work.name;
  c.algorithm                   = run.algo->name();
  c.gpus                        = s.gpus;
  c.nodes                       = s.nodes;
  c.dp                          = s.dp;
  c.tp                          = s.tp;
  c.pp                          = s.pp;
  c.vpp                         = s.vpp;
  c.cp                          = s.cp;
  if (run.zero_given)
    c.zero_stage = s.zero_stage;
  if (work.architecture && work.architecture->moe())
    c.ep = s.ep;
  c.overlap    = overlap_description(s.overlap, s.tp_overlap);
  c.tp_overlap = s.tp_overlap;
  if (s.pp > 1 && run.algo->parallelism() != algorithms::Parallelism::PIPELINE)
    c.pipeline_p2p = s.pipeline_sends_block ? sim::BLOCKING_PIPELINE_P2P : sim::OVERLAPPED_PIPELINE_P2P;
  c.global_batch                = s.global_batch;
  c.batch_rule                  = run.batch_rule;
  c.micro_batch                 = s.micro_batch;
  c.grad_accumulation           = s.grad_accumulation;
  c.seq_len                     = s.seq_len;
  c.network_model               = sim::to_string(topo.network_model);
  c.inter_node_gbps             = topo.node_uplink_bytes_per_s() * 8 / 1e9;
  c.params                      = run.params;
  c.compute_source              = report.compute.source;
  c.forward_ms_per_micro_batch  = report.compute.forward_s * 1e3;
  c.backward_ms_per_micro_batch = report.compute.backward_s * 1e3;
  out.wall_s                    = report.wall_s;
  out.events                    = report.events;
  out.fidelity                  = run.fidelity_name;
  if (stragglers.active()) {
    // The slowest rank sets the compute phase, and the slowest fixed rank its kernels and optimizer step; the others
    // wait. Nominal = what a uniform cluster spends on each.
    const double nominal        = avg.compute_s / straggling.compute_factor;
    const double nominal_kernel = (avg.compression_s + avg.optimizer_s) / straggling.kernel_factor;
    out.straggler_wait_s =
        straggling.mean_idle_factor * nominal + straggling.mean_kernel_idle_factor * nominal_kernel;
    out.ranks_idle_s.emplace();
    for (std::size_t r = 0; r < straggling.idle_factor.size(); ++r)
      out.ranks_idle_s->push_back(straggling.idle_factor[r] * nominal + straggling.kernel_idle_factor[r] * nominal_kernel);
    c.stragglers = StragglerResult{straggling.compute_factor, straggling.kernel_factor, stragglers.cv, stragglers.seed,
                                   stragglers.rank_scale.size()};
  }
  if (run.links) {
    out.links.emplace();
    for (const auto& l : report.links)
      out.links->push_back({l.name, l.bytes, l.utilisation});
    out.links_over_time = links_over_time(report.trace);
  }
  if (run.trace)
    out.trace = trace_events(report.trace);
  out.intervals = prediction_intervals(out, errors_with_own_calibration(topo, c), dense_peak_flops(topo, report.compute.precision));
  return out;
}

SimulationReport run_simulation(const SimulateRequest& request, InputCache* cache)
{
  auto report = simulate(resolve_run(request, cache));
  // The same check a stored report passes before experiment --resume reuses it: a report that breaks it is a bug
  // here, never an answer.
  if (const std::string problem = check_report(report); !problem.empty())
    throw std::logic_error("the simulation's report is inconsistent: " + problem);
  return report;
}

IsolatedRun start_isolated(const SimulateRequest& request)
{
  return start_isolated_work([&request] {
    sim::leave_simulation_to_process_exit(); // the child ends with its answer
    return to_json(run_simulation(request));
  });
}

SimulationReport run_simulation_isolated(const SimulateRequest& request, const ProgressFn& on_progress)
{
  return report_from_json(await_isolated(start_isolated(request), on_progress));
}

std::function<nlohmann::json(std::size_t)> simulation_task(std::function<const SimulateRequest&(std::size_t)> request,
                                                          std::size_t count)
{
  // A forked child starts with a copy of this process's memory: what is loaded here is loaded in every child. Parsing
  // the prediction errors (50 KB of JSON) and the workload file took about a third of a short simulation's time in
  // each child (perf, `validate`).
  auto shared = std::make_shared<InputCache>();
  for (std::size_t i = 0; i < count; ++i)
    preload_inputs(request(i), *shared);
  try {
    (void)default_prediction_errors();
  } catch (const std::exception&) {
    // Left for the child that needs it to report.
  }
  return [request = std::move(request), shared](std::size_t i) {
    sim::leave_simulation_to_process_exit(); // a pool task runs in a child that ends with its answer
    return to_json(run_simulation(request(i), shared.get()));
  };
}

} // namespace ccsim::api
