// PLACEHOLDER: `ccsim experiment` is being built; this file is replaced by its implementation.
#include "cli/Command.hpp"
#include "sim/io/JsonInput.hpp"

namespace ccsim::cli {
int cmd_experiment(const std::vector<std::string>& /*args*/)
{
  throw io::InputError("ccsim experiment", "", "not available in this build yet");
}
} // namespace ccsim::cli
