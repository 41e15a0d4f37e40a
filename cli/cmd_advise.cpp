// PLACEHOLDER: `ccsim advise` is being built; this file is replaced by its implementation.
#include "cli/Command.hpp"
#include "sim/io/JsonInput.hpp"

namespace ccsim::cli {
int cmd_advise(const std::vector<std::string>& /*args*/)
{
  throw io::InputError("ccsim advise", "", "not available in this build yet");
}
} // namespace ccsim::cli
