// `simulate`'s option table and request builder (SimulateCommand.hpp).
#include "api/options/SimulateCommand.hpp"

#include "api/options/CommonOptions.hpp"
#include "api/output/OutputFile.hpp"
#include "api/output/PlotOutput.hpp"
#include "api/run/ReportJson.hpp"

#include "io/JsonInput.hpp"

#include <fmt/format.h>

namespace ccsim::api {

namespace {
/// --slow-gpu RANK:FACTOR, repeatable: a rank below the largest cluster, a factor in the compute-scale range, each
/// rank once.
void read_slow_gpus(SimulateCommand& c, const GivenValue& value, const Option& o)
{
  for (const auto& item : value.texts) {
    const auto colon = item.find(':');
    if (colon == std::string::npos)
      throw io::InputError(o.ref(), "", "expected RANK:FACTOR, e.g. 3:0.7 (got " + io::echo(item) + ")");
    const auto rank     = io::parse_integer(item.substr(0, colon), io::Range{0, io::range::kGpus.hi - 1}, o.ref());
    const double factor = io::parse_number(item.substr(colon + 1), io::range::kComputeScale, o.ref());
    if (!c.slow_gpus.emplace(static_cast<int>(rank), factor).second)
      throw io::InputError(o.ref(), "", fmt::format("rank {} is given twice", rank));
  }
}
} // namespace

const OptionTable<SimulateCommand>& simulate_options()
{
  static const OptionTable<SimulateCommand> table = [] {
    namespace r = io::range;
    using C     = SimulateCommand;
    auto lines  = terminal_lines<C>();
    append(lines, {
        {source_option("topology", "topology preset or JSON file").needed(), into(&C::topology)},
        {source_option("workload", "workload preset or JSON file").needed(), into(&C::workload)},
        {text_option("algorithm", "algorithm (ccsim list algorithms)").needed(), into(&C::algorithm)},
    });
    append(lines, shape_lines<C>(/*parallelism=*/true));
    append(lines, {
        {number_option("bandwidth-gbps", r::kLinkGbps, "override the inter-node bandwidth per node (Gbit/s)").value("X"),
         into(&C::bandwidth_gbps)},
        {number_option("latency-us", r::kLatencyUs, "override the one-way NIC latency (microseconds)").value("L"),
         into(&C::latency_us)},
        {choice_option("network-model", {"rdma", "tcp"},
                       "rdma (alpha-beta) or tcp (LV08, TCP window); default: the topology's"),
         into(&C::network_model)},
        {key_value_option("param", '=', "algorithm or workload parameter key=value (repeatable)").in_python("params"),
         into(&C::params)},
        {choice_option("fidelity", {"exact", "fast"}, "exact (every ring round) or fast (bulk flows)").defaults("fast"),
         into(&C::fidelity)},
        {flag_option("links", "report the busiest links, and (JSON) every link's load per op over time"),
         into(&C::links)},
        {path_option("trace", "write a Chrome trace (Perfetto, chrome://tracing) of one step per phase")
             .value("FILE.json"),
         into(&C::trace_file)},
        {flag_option("allow-oom", "simulate even when the run does not fit the GPUs' memory (gpu.memory_gb)"),
         into(&C::allow_oom)},
        {key_value_option("slow-gpu", ':', "GPU RANK computes at FACTOR of the nominal speed (0.5 = half); repeatable")
             .value("RANK:FACTOR")
             .in_python("slow_gpus"),
         read_slow_gpus},
        {number_option("straggler-cv", r::kStragglerCv,
                       "every GPU's compute time per step varies by a lognormal of mean 1 and coefficient of "
                       "variation X (0..10)")
             .value("X"),
         into(&C::straggler_cv)},
        {integer_option("straggler-seed", r::kSeed, "seed of the random straggler model (default 1)").value("S"),
         into(&C::straggler_seed)},
        {choice_option("overlap", {"none", "bucketed"},
                       "gradient reduction: none (after the last backward pass) or bucketed (under it); default: the "
                       "workload's")
             .value("MODE"),
         into(&C::overlap)},
        {number_option("bucket-mb", r::kBucketMb, "bucket size of --overlap bucketed and --param-prefetch").value("MB"),
         into(&C::bucket_mb)},
        {on_off_option("param-prefetch", "prefetch a sharded optimizer's weight all-gather under the next forward pass; "
                                         "default: the workload's")
             .value("on|off"),
         into(&C::param_prefetch)},
        {choice_option("recompute", {"none", "selective", "full"},
                       "activation recomputation: none, selective (the attention core, Korthikanti et al. 2022 §5) or "
                       "full (every layer's forward, its tensor-parallel all-reduces included); the bare flag is full; "
                       "default: the workload's, full where the run fits only with it")
             .value("MODE")
             .bare("full"),
         into(&C::recompute)},
        {number_option("memory-headroom-gb", r::kMemoryHeadroomGb,
                       "GB per GPU the model cannot use (CUDA context, allocator fragmentation); default: the "
                       "topology's gpu.memory_headroom_gb")
             .value("GB"),
         into(&C::memory_headroom_gb)},
        {integer_option("zero", r::kZeroStage,
                        "ZeRO stage: 0 none, 1 optimizer state, 2 and gradients, 3 and weights (gathered per layer in "
                        "forward and backward); one the algorithm supports; default: what the algorithm runs")
             .value("S"),
         into(&C::zero)},
        {choice_option("fsdp", {"full_shard", "shard_grad_op", "no_shard"},
                       "PyTorch FSDP's names for --zero: full_shard = 3, shard_grad_op = 2, no_shard = 0")
             .value("STRATEGY"),
         into(&C::fsdp)},
        {path_option("plot", "with --links: draw the links x time heat map into DIR (PNG + SVG)").value("DIR"),
         into(&C::plot_dir)},
    });
    append(lines, long_run_lines<C>(kTimeLimitHelp));
    return OptionTable<C>("simulate", "", "simulate", std::move(lines));
  }();
  return table;
}

SimulateCommand build_simulate(const GivenValues& given)
{
  SimulateCommand c = simulate_options().fill(given);
  if (c.trace_file) { // before the simulation: a FIFO or a folder there is an error now, not after minutes of work
    refuse_non_regular(*c.trace_file, "--trace");
    c.trace = true;
  }
  if (c.fsdp) { // FSDP's sharding strategies are ZeRO's stages by another name (torch.distributed.fsdp.ShardingStrategy)
    if (c.zero)
      throw io::InputError("--fsdp", "", "names a ZeRO stage: give --zero or --fsdp, not both");
    c.zero = *c.fsdp == "full_shard" ? 3 : *c.fsdp == "shard_grad_op" ? 2 : 0;
  }
  if (c.plot_dir && !c.links)
    throw io::InputError("--plot", "", "draws the link heat map: give --links too");
  return c;
}

void write_simulate_files(const SimulateCommand& c, SimulationReport& report)
{
  if (c.trace_file && report.trace) {
    write_output_file(*c.trace_file, io::dump_json(*report.trace) + "\n", "--trace");
    report.trace.reset();
  }
  if (c.plot_dir)
    plot_into(*c.plot_dir, "simulate.json", to_json(report), "link_heatmap.py", "simulate", "the link heat map");
}

} // namespace ccsim::api
