// The commands' option tables by name (CommandTables.hpp).
#include "api/options/CommandTables.hpp"

#include "api/options/AdviseCommand.hpp"
#include "api/options/BenchComputeCommand.hpp"
#include "api/options/BenchKernelsCommand.hpp"
#include "api/options/CalibrateCommand.hpp"
#include "api/options/CollectiveCommand.hpp"
#include "api/options/ExperimentCommand.hpp"
#include "api/options/ListCommand.hpp"
#include "api/options/SimulateCommand.hpp"
#include "api/options/TrainCommand.hpp"
#include "api/options/ValidateCommand.hpp"

#include "io/InputError.hpp"

namespace ccsim::api {

const std::vector<const CommandOptions*>& command_tables()
{
  static const std::vector<const CommandOptions*> tables = {
      &list_options().options(),       &simulate_options().options(),      &experiment_options().options(),
      &advise_options().options(),     &train_options().options(),         &bench_kernels_options().options(),
      &collective_options().options(), &calibrate_options().options(),     &validate_options().options(),
      &bench_compute_options().options(),
  };
  return tables;
}

const CommandOptions& command_table(const std::string& command)
{
  std::string known;
  for (const auto* t : command_tables()) {
    if (t->command == command)
      return *t;
    known += (known.empty() ? "" : ", ") + t->command;
  }
  throw io::InputError("ccsim", "", io::echo(command) + " is not a command (known: " + known + ")");
}

} // namespace ccsim::api
