#include "api/output/PlotOutput.hpp"

#include "api/output/OutputFile.hpp"
#include "api/process/ExitCodes.hpp"
#include "api/process/Spawn.hpp"
#include "io/JsonInput.hpp"

#include <iostream>

namespace ccsim::api {

void plot_into(const std::filesystem::path& dir, const std::string& results_file, const nlohmann::json& doc,
               const std::string& script, const std::string& command, const std::string& what)
{
  make_output_folder(dir, "--plot");
  write_output_file(dir / results_file, io::dump_json(doc, 2) + "\n", "--plot");
  const PlotRun plot = run_plot_script(script, (dir / results_file).string());
  if (plot.status == PlotRun::Status::NO_MATPLOTLIB)
    std::cerr << "ccsim " << command << ": warning: " << what << " was not drawn " << plot.message << "\n";
  else if (plot.status == PlotRun::Status::FAILED)
    throw FigureFailed(what + " was not drawn" + plot.message);
}

} // namespace ccsim::api
