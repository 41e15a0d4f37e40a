// PLACEHOLDER: `ccsim train` is being built; this file is replaced by its implementation.
#include "cli/Command.hpp"
#include "sim/io/JsonInput.hpp"

namespace ccsim::cli {
int cmd_train(const std::vector<std::string>& /*args*/)
{
  throw io::InputError("ccsim train", "", "not available in this build yet");
}
} // namespace ccsim::cli
