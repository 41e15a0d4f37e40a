#pragma once
// The flags that shape one simulated run (--gpus, --global-batch, --micro-batch, --tp, --pp), declared and read
// once for every subcommand that simulates, each range-checked against io/Limits.hpp.

#include "cli/Options.hpp"
#include "api/run/Simulation.hpp"

namespace ccsim::cli {

/// Adds --gpus (required) and --global-batch / --micro-batch, plus --tp / --pp when `parallelism`.
void add_shape_options(po::options_description& desc, bool parallelism);

/// Reads the flags add_shape_options declared into `req`; bad values throw io::InputError naming the flag.
void read_shape_flags(const po::variables_map& vm, SimulateRequest& req);

} // namespace ccsim::cli
