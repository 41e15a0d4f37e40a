// PLACEHOLDER: `ccsim bench-kernels` is being built; this file is replaced by its implementation.
#include "cli/Command.hpp"
#include "sim/io/JsonInput.hpp"

namespace ccsim::cli {
int cmd_bench_kernels(const std::vector<std::string>& /*args*/)
{
  throw io::InputError("ccsim bench-kernels", "", "not available in this build yet");
}
} // namespace ccsim::cli
