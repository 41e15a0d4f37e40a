// Shared run-shape flags: typed as strings for Boost, parsed and range-checked here.
#include "cli/ShapeFlags.hpp"

namespace ccsim::cli {

void add_shape_options(po::options_description& desc, bool parallelism)
{
  desc.add_options()
    ("gpus", po::value<std::string>()->required()->value_name("N"), "number of GPUs")
    ("global-batch", po::value<std::string>()->value_name("B"), "samples per step (default: the workload's)")
    ("micro-batch", po::value<std::string>()->value_name("b"), "samples per GPU per micro-batch (default: the workload's)");
  if (parallelism)
    desc.add_options()
      ("tp", po::value<std::string>()->value_name("t"), "tensor-parallel degree (default: the workload's)")
      ("pp", po::value<std::string>()->value_name("p"), "pipeline stages (default: the workload's)");
}

void read_shape_flags(const po::variables_map& vm, SimulateRequest& req)
{
  req.gpus = static_cast<int>(*integer_flag(vm, "gpus", io::range::kGpus));
  if (const auto b = integer_flag(vm, "global-batch", io::range::kBatch))
    req.global_batch = static_cast<std::uint64_t>(*b);
  if (const auto b = integer_flag(vm, "micro-batch", io::range::kBatch))
    req.micro_batch = static_cast<std::uint64_t>(*b);
  if (const auto t = integer_flag(vm, "tp", io::range::kParallelDegree))
    req.tp = static_cast<int>(*t);
  if (const auto p = integer_flag(vm, "pp", io::range::kParallelDegree))
    req.pp = static_cast<int>(*p);
}

} // namespace ccsim::cli
