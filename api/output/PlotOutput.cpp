#include "api/output/PlotOutput.hpp"

#include "api/output/OutputFile.hpp"
#include "api/process/Spawn.hpp"
#include "io/JsonInput.hpp"

#include <iostream>

namespace ccsim::api {

void plot_into(const std::filesystem::path& dir, const std::string& results_file, const nlohmann::json& doc,
               const std::string& script, const std::string& command, const std::string& what)
{
  make_output_folder(dir, "--plot");
  write_output_file(dir / results_file, io::dump_json(doc, 2) + "\n", "--plot");
  if (!run_plot_script(script, (dir / results_file).string()))
    std::cerr << "ccsim " << command << ": warning: " << what << " was not drawn (needs python3-matplotlib)\n";
}

} // namespace ccsim::api
