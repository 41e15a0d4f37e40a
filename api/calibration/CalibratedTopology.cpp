#include "api/calibration/CalibratedTopology.hpp"

#include "api/output/OutputFile.hpp"
#include "sim/platform/Topology.hpp"
#include "io/JsonInput.hpp"

namespace ccsim::api {

void write_calibrated_topology(const nlohmann::json& doc, const std::string& out)
{
  write_output_file(out, io::dump_json(doc, 2) + "\n", "--out");
  (void)sim::load_topology(out); // what was written must load as every topology does
}

} // namespace ccsim::api
