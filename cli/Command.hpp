#pragma once
// The subcommand table (git-style): main looks a name up here and runs it. Each subcommand lives in
// its own cmd_<name>.cpp, parses its options, calls the library and prints; it holds no model logic.

#include <string>
#include <vector>

namespace ccsim::cli {

using CommandFn = int (*)(const std::vector<std::string>& args);

struct Command {
  const char* name;
  CommandFn run;
  const char* summary;
};

int cmd_list(const std::vector<std::string>& args);
int cmd_simulate(const std::vector<std::string>& args);
int cmd_experiment(const std::vector<std::string>& args);
int cmd_train(const std::vector<std::string>& args);
int cmd_bench_kernels(const std::vector<std::string>& args);
int cmd_bench_compute(const std::vector<std::string>& args);
int cmd_advise(const std::vector<std::string>& args);
int cmd_collective(const std::vector<std::string>& args);
int cmd_calibrate(const std::vector<std::string>& args);
int cmd_validate(const std::vector<std::string>& args);

/// Every subcommand, in the order `ccsim --help` shows them.
const std::vector<Command>& commands();

} // namespace ccsim::cli
