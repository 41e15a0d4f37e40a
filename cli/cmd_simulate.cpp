// `ccsim simulate`: predict step time, throughput and breakdown of one configuration.
#include "api/options/SimulateCommand.hpp"
#include "api/output/Table.hpp"
#include "api/process/RunControl.hpp"
#include "api/run/ReportJson.hpp"
#include "api/run/Simulation.hpp"
#include "cli/Command.hpp"
#include "cli/Options.hpp"
#include "cli/Progress.hpp"
#include "sim/model/TrainingRecipe.hpp"

#include <fmt/format.h>

#include <iostream>

namespace ccsim::cli {

namespace {
/// The per-operator model's account of one layer: one line, and with --wide every kernel.
void print_operators(const OperatorsResult& o)
{
  const auto& l = o.layer;
  std::cout << wrap_text(fmt::format("compute per operator ({} GEMMs, recompute {}): one layer per micro-batch {:.4g} ms "
                                     "forward, {:.4g} ms backward, {:.4g} ms recomputed; the pace is stage {} of {} ({} "
                                     "layers){}",
                                     o.precision, o.recompute, l.forward_ms, l.backward_ms, l.recompute_ms,
                                     o.slowest_stage + 1, o.layers_per_stage.size(),
                                     o.layers_per_stage[static_cast<std::size_t>(o.slowest_stage)],
                                     table_width() == 0 ? "" : " (--wide lists every kernel)"),
                         table_width())
            << "\n";
  if (table_width() != 0)
    return;
  Table t({"block", "kernel", "pass", "m x n x k (batch)", "tile / split-k / waves", "time (ms)", "TFLOP/s", "GB/s",
           "bound"});
  auto add = [&t](const std::string& block, const OperatorBlock& b) {
    for (const auto& op : b.ops) {
      const double s = op.time_ms / 1e3;
      t.add_row({block, op.name, op.pass,
                 op.kind == "gemm" ? fmt::format("{:.0f} x {:.0f} x {:.0f} ({:.0f})", op.m, op.n, op.k, op.batch) : op.kind,
                 op.kind == "gemm" ? fmt::format("{} / {} / {:.0f}", op.tile, op.split_k, op.waves) : "",
                 format_number(op.time_ms), op.flops > 0 ? format_number(op.flops / s / 1e12) : "",
                 format_number(op.bytes / s / 1e9), op.bound});
    }
  };
  add("layer", o.layer);
  add("embedding", o.embedding);
  add("output", o.output);
  std::cout << "\n";
  t.print(std::cout, table_width());
}

void print_table(const SimulationReport& r)
{
  const auto& cfg = r.config;
  std::cout << wrap_text(fmt::format("{} on {} x {} ({}), {} GPUs = dp {} x tp {} x pp {}{}, batch {} (micro {} x {} "
                                     "accum.), {} network at {:.3g} Gbit/s per node",
                                     cfg.algorithm, cfg.workload, cfg.topology, r.fidelity, cfg.gpus, cfg.dp, cfg.tp,
                                     cfg.pp, (cfg.vpp > 1 ? fmt::format(" (vpp {})", cfg.vpp) : "") +
                                                 (cfg.cp > 1 ? fmt::format(" x cp {}", cfg.cp) : "") +
                                                 (cfg.ep ? fmt::format(" (ep {})", *cfg.ep) : "") +
                                                 (cfg.zero_stage ? fmt::format(", ZeRO-{}", *cfg.zero_stage) : ""),
                                     cfg.global_batch,
                                     cfg.micro_batch, cfg.grad_accumulation, cfg.network_model, cfg.inter_node_gbps),
                         table_width())
            << "\n";
  Table t({"phase", "fraction", "step (s)", "samples/s", "compute (s)", "comm (s)", "exposed comm (s)",
           "compression (s)", "optimizer (s)", "allreduce (ms)", "inter-node (MB/GPU)"});
  auto row = [&](const std::string& name, double fraction, double step, double samples, const TimeBreakdown& b,
                 const BytesPerGpu& bytes) {
    t.add_row({name, format_number(fraction, 3), format_number(step), format_number(samples),
               format_number(b.compute_s), format_number(b.comm_s), format_number(b.exposed_comm_s),
               format_number(b.compression_s), format_number(b.optimizer_s), format_number(b.allreduce_ms),
               format_number(bytes.inter_node / 1e6)});
  };
  for (const auto& p : r.phases)
    row(p.name, p.fraction, p.step_time_s, p.samples_per_s, p.breakdown, p.bytes_per_gpu);
  if (r.phases.size() > 1)
    row("whole run", 1.0, r.step_time_s, r.samples_per_s, r.breakdown, r.bytes_per_gpu);
  t.print(std::cout, table_width());
  std::cout << wrap_text(fmt::format("throughput {:.4g} samples/s = {:.4g} tokens/s ({:.4g} per GPU; 1T tokens in "
                                     "{:.4g} days), {:.3g} TFLOP/s per GPU; simulated {} messages in {:.3f} s wall",
                                     r.samples_per_s, metric_value(r, Metric::TOKENS_PER_S),
                                     metric_value(r, Metric::TOKENS_PER_S_PER_GPU),
                                     metric_value(r, Metric::DAYS_PER_TRILLION_TOKENS), r.tflops_per_gpu, r.events,
                                     r.wall_s),
                         table_width())
            << "\n";
  if (const auto it = r.intervals.find(Metric::SAMPLES_PER_S); it != r.intervals.end())
    std::cout << wrap_text(fmt::format("likely range {:.4g}-{:.4g} samples/s, step {:.4g}-{:.4g} s ({})", it->second.low,
                                       it->second.high, r.intervals.at(Metric::STEP_TIME_S).low,
                                       r.intervals.at(Metric::STEP_TIME_S).high, it->second.why),
                           table_width())
              << "\n";
  if (cfg.overlap)
    std::cout << wrap_text("overlap: " + *cfg.overlap + (cfg.tp_overlap ? "; expert-parallel" : "; tensor-parallel, expert-parallel") +
                               " and compressed collectives stay on the critical path (docs/overlap.md)",
                           table_width())
              << "\n";
  if (!cfg.pipeline_p2p.empty())
    std::cout << wrap_text(cfg.pipeline_p2p == sim::BLOCKING_PIPELINE_P2P
                               ? "pipeline sends: blocking, each stage waits for its messages as Megatron-LM's and "
                                 "DeepSpeed's schedules do (--pipeline-p2p overlapped sends them beside the compute)"
                               : "pipeline sends: overlapped, beside the next unit's compute (--pipeline-p2p)",
                           table_width())
              << "\n";
  if (cfg.stragglers)
    std::cout << fmt::format("stragglers: compute {:.4g}x the uniform cluster's; the average GPU waits {:.4g} s per step "
                             "for the slowest\n",
                             cfg.stragglers->compute_factor, r.straggler_wait_s);
  if (r.model)
    std::cout << fmt::format("model from its architecture: {:.4g} parameters ({:.4g} active per token), {} tensors; "
                             "{:.4g} FLOPs per sample counting {} attention (causal {:.4g}, full {:.4g}, none {:.4g}); "
                             "activations {:.4g} MiB per layer per micro-batch and GPU\n",
                             static_cast<double>(r.model->params), static_cast<double>(r.model->active_params),
                             r.model->tensors, r.model->flops_per_sample, r.model->attention_flops,
                             r.model->flops_per_sample_causal, r.model->flops_per_sample_full,
                             r.model->flops_per_sample_no_attention, r.model->activation_bytes_per_layer / 1048576);
  const auto& mem = r.memory;
  std::cout << fmt::format("memory {:.1f} GB per GPU{} (fits: {})\n", r.memory_gb_per_gpu,
                           mem.activation_recomputation ? " with activation recomputation" : "",
                           !mem.fit.capacity_gb   ? to_string(mem.fit.verdict)
                           : mem.fit.headroom_gb > 0 ? fmt::format("{} of {:.0f} GB less {:.3g} GB headroom",
                                                                   to_string(mem.fit.verdict), *mem.fit.capacity_gb,
                                                                   mem.fit.headroom_gb)
                                                     : fmt::format("{} of {:.0f} GB", to_string(mem.fit.verdict),
                                                                   *mem.fit.capacity_gb));
  if (r.operators)
    print_operators(*r.operators);
  if (r.links) {
    Table l({"busiest link", "bytes (MB)", "utilisation (%)"});
    for (const auto& link : *r.links)
      l.add_row({link.link, format_number(link.bytes / 1e6), format_number(100 * link.utilisation, 3)});
    std::cout << "\n";
    l.print(std::cout, table_width());
  }
}
} // namespace

int cmd_simulate(const std::vector<std::string>& args)
{
  const auto given = parse_command(simulate_options().options(), args);
  if (!given)
    return 0;
  const Format format = output_format(*given);
  const bool progress = read_long_run_options(*given);
  SimulateCommand req = build_simulate(*given);

  // Progress: messages simulated of those planned, relayed from the simulation child.
  Progress line("ccsim simulate", progress);
  const std::string what = fmt::format("{} {}, {} GPUs", req.algorithm, req.fidelity, req.gpus);
  std::uint64_t done = 0, total = 0;
  SimulationReport report;
  try {
    report = run_simulation_isolated(req, [&](std::uint64_t d, std::uint64_t t) {
      done = d, total = t;
      line.update(what, static_cast<double>(d), static_cast<double>(t), "messages");
    });
  } catch (const RunStopped&) {
    line.finish();
    // A simulation keeps nothing partial: its step time exists only once every message has arrived.
    throw stop_exception(total > 0 ? fmt::format("{}/{} messages simulated, no result", done, total) : "no result");
  }
  line.finish();
  write_simulate_files(req, report);
  const nlohmann::json doc = to_json(report);
  // CSV: one row, the document's fields as columns (phases.<name>.step_time_s, ...); the per-link time series and the
  // per-operator breakdown stay in the JSON.
  if (!print_json_or_csv(format, doc, {doc}, {"links_over_time", "operators"}))
    print_table(report);
  return 0;
}

} // namespace ccsim::cli
