// The command table. Adding a subcommand = one cmd_<name>.cpp plus one line here.
#include "cli/Command.hpp"

namespace ccsim::cli {

const std::vector<Command>& commands()
{
  static const std::vector<Command> table = {
      {"list", cmd_list, "list presets: topologies, workloads, algorithms, experiments"},
      {"simulate", cmd_simulate, "predict step time and throughput of one configuration"},
      {"experiment", cmd_experiment, "run a sweep or paper reproduction from a JSON file"},
      {"advise", cmd_advise, "rank every applicable algorithm for a cluster and model"},
      {"train", cmd_train, "train a proxy model with N in-process workers (real compressors)"},
      {"bench-kernels", cmd_bench_kernels, "measure compression kernel throughput"},
      {"bench-compute", cmd_bench_compute, "time a transformer layer's GEMMs and element-wise kernels on the GPU"},
      {"collective", cmd_collective, "simulate one collective over a size sweep, in nccl-tests' columns"},
      {"calibrate", cmd_calibrate, "fit a topology's NIC bandwidth and latency to nccl-tests output"},
      {"validate", cmd_validate, "refit the presets' calibrated constants leaving tables and rows out, and predict them"},
  };
  return table;
}

} // namespace ccsim::cli
