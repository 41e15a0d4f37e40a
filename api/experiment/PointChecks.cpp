// Resolving every point of an experiment up front; see PointChecks.hpp.
#include "api/experiment/PointChecks.hpp"

#include "api/run/ResolvedRun.hpp"
#include "io/JsonInput.hpp"

namespace ccsim::api {

std::vector<std::string> point_input_errors(const Experiment& e)
{
  std::vector<std::string> errors(e.points.size());
  InputCache cache;
  for (std::size_t i = 0; i < e.points.size(); ++i) {
    try {
      (void)resolve_run(e.points[i].request, &cache);
    } catch (const io::InputError& err) {
      errors[i] = err.what();
    }
  }
  return errors;
}

} // namespace ccsim::api
