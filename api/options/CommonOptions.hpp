#pragma once
// The option lines several commands share: the command line's own (--help, --format, --wide, --quiet, --time-limit:
// each says why Python has no such keyword) and the flags that shape one simulated run (--gpus, --global-batch,
// --micro-batch, --tp, --pp), declared once for simulate and advise.

#include "api/options/OptionTable.hpp"
#include "api/run/SimulateRequest.hpp"

#include "io/Limits.hpp"
#include "sim/model/TrainingRecipe.hpp"

#include <string>
#include <vector>

namespace ccsim::api {

/// The --format help of most commands.
inline constexpr const char* kFormatHelp =
    "output: table (for people), json (one document) or csv (the JSON's fields as columns)";
/// The --time-limit help of the commands that stop cleanly and exit 3.
inline constexpr const char* kTimeLimitHelp =
    "stop cleanly after this many seconds (counted from the start), keep what finished, exit 3";

Option help_option();
Option format_option(const std::string& help);
Option wide_option();
Option quiet_option();
Option time_limit_option(const std::string& help);

/// --help, --format and --wide: the command line's, first in every command's help.
template <class Target>
std::vector<typename OptionTable<Target>::Line> terminal_lines(const std::string& format_help = kFormatHelp)
{
  return {{help_option(), {}}, {format_option(format_help), {}}, {wide_option(), {}}};
}

/// --quiet, and --time-limit when `time_limit_help` is not empty: the options of every long-running command.
template <class Target>
std::vector<typename OptionTable<Target>::Line> long_run_lines(const std::string& time_limit_help)
{
  std::vector<typename OptionTable<Target>::Line> lines = {{quiet_option(), {}}};
  if (!time_limit_help.empty())
    lines.push_back({time_limit_option(time_limit_help), {}});
  return lines;
}

/// --gpus (required), --global-batch and --micro-batch, --cp, --tp / --pp / --vpp when `parallelism`, and
/// --tp-overlap, read into the SimulateRequest that `path` (member pointers from the target) leads to. --cp is a given
/// value in both simulate and advise (advise's --search does not search it).
template <class Target, class... Path>
std::vector<typename OptionTable<Target>::Line> shape_lines(bool parallelism, Path... path)
{
  namespace r = io::range;
  std::vector<typename OptionTable<Target>::Line> lines = {
      {integer_option("gpus", r::kGpus, "number of GPUs").needed().value("N"), into(path..., &SimulateRequest::gpus)},
      {integer_option("global-batch", r::kBatch, "samples per step (default: the workload's)").value("B"),
       into(path..., &SimulateRequest::global_batch)},
      {integer_option("micro-batch", r::kBatch, "samples per GPU per micro-batch (default: the workload's)").value("b"),
       into(path..., &SimulateRequest::micro_batch)},
      {integer_option("cp", r::kParallelDegree,
                      "context-parallel degree: each sequence split over cp GPUs, ring attention's K/V exchange per "
                      "layer (Megatron-Core --context-parallel-size; default: the workload's, else 1)")
           .value("c"),
       into(path..., &SimulateRequest::cp)},
  };
  if (parallelism)
    append(lines, {
        {integer_option("tp", r::kParallelDegree, "tensor-parallel degree (default: the workload's)").value("t"),
         into(path..., &SimulateRequest::tp)},
        {integer_option("pp", r::kParallelDegree, "pipeline stages (default: the workload's)").value("p"),
         into(path..., &SimulateRequest::pp)},
        {integer_option("vpp", r::kParallelDegree,
                        "model chunks per pipeline stage: Megatron's interleaved 1F1B schedule (default: the "
                        "workload's, else 1)")
             .value("v"),
         into(path..., &SimulateRequest::vpp)},
    });
  // Megatron-Core's --tp-comm-overlap (docs/overlap.md); advise runs every split it tries with it where tp > 1.
  lines.push_back({on_off_option("tp-overlap", "overlap the tensor-parallel all-gathers and reduce-scatters with their "
                                               "GEMMs, as Megatron-Core's --tp-comm-overlap (needs tp > 1 and "
                                               "sequence parallelism); the bare flag is on; default: the workload's")
                       .value("on|off")
                       .bare("on"),
                   into(path..., &SimulateRequest::tp_overlap)});
  // The training stack (sim/model/TrainingRecipe.hpp): its kernels run at the GPU's gpu.compute.framework_efficiency.
  lines.push_back({choice_option("framework", sim::known_frameworks(),
                                 "training stack: megatron-lm, or megatron-deepspeed (DeepSpeed's pipeline engine, its "
                                 "kernels at the GPU's gpu.compute.framework_efficiency share of the model's rate); "
                                 "default: the workload's")
                       .value("STACK"),
                   into(path..., &SimulateRequest::framework)});
  // Whether a stage waits for its pipeline sends (sim::PipelineComm::blocking_sends, docs/overlap.md).
  lines.push_back({choice_option("pipeline-p2p", sim::pipeline_p2p_modes(),
                                 "pipeline sends between stages: blocking (each stage waits for its messages, as "
                                 "Megatron-LM's and DeepSpeed's schedules do) or overlapped (asynchronous, beside the "
                                 "next unit's compute); the pipeline algorithms (GPipe) always overlap; default: the "
                                 "workload's, else blocking")
                       .value("MODE"),
                   into(path..., &SimulateRequest::pipeline_p2p)});
  return lines;
}

} // namespace ccsim::api
