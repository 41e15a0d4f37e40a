// `ccsim calibrate`: fits a topology's constants to measurements of the real cluster and writes the calibrated
// topology: the collective constants from nccl-tests logs (--nccl-tests, api/calibration/CalibrateNccl.hpp), or any
// constants from step times (--steps, api/calibration/CalibrateSteps.hpp). This file parses flags and prints the fit.
#include "api/calibration/CalibrateSteps.hpp"
#include "api/calibration/Refit.hpp"
#include "api/options/CalibrateCommand.hpp"
#include "api/output/Table.hpp"
#include "cli/Command.hpp"
#include "cli/Options.hpp"
#include "io/JsonInput.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <optional>

namespace ccsim::cli {

/// calibrate --steps: the fit itself is api/calibration/CalibrateSteps; this prints it.
static int calibrate_steps_command(const CalibrateCommand& command, Format format)
{
  const std::string& steps = *command.steps;
  const std::string& out   = command.out;
  const auto r = calibrate_steps(command.topology_path, steps, command.fit, command.jobs, out);
  if (format != Format::TABLE) { // json, or csv: a row per measured value
    const nlohmann::json doc = to_json(r, out);
    print_json_or_csv(format, doc, doc["rows"].get<std::vector<nlohmann::json>>());
    return 0;
  }
  std::string changed;
  for (std::size_t c = 0; c < r.constants.size(); ++c)
    changed += fmt::format("{}{} {:.6g} -> {:.6g}", changed.empty() ? "" : ", ", r.constants[c], r.before[c], r.after[c]);
  std::cout << fmt::format("{}: {} values -> {} (rms log error {:.3g}); written to {}\n", io::printable(steps, 200),
                           r.rows.size(), changed, r.rms_log_error, io::printable(out, 200));
  Table t({"row", "metric", "measured", "before", "after", "error after (%)"});
  for (const auto& row : r.rows)
    t.add_row({row.label, row.metric, format_number(row.measured), format_number(row.predicted_before),
               format_number(row.predicted_after), format_number(error_pct(row.predicted_after, row.measured), 3)});
  t.print(std::cout, table_width());
  return 0;
}

/// calibrate --nccl-tests --format table: what was read, what was fitted, then measured vs replayed per size.
static int print_nccl_table(const NcclCalibration& c, const std::string& out)
{
  for (const auto& l : c.logs)
    std::cout << fmt::format("{}: {} ({}) over {} ranks ({}){}{}\n", io::printable(l.file, 200), l.op, l.op_from,
                             l.ranks, l.ranks_from, l.nodes ? fmt::format(", {} nodes", *l.nodes) : "",
                             l.nccl_version ? ", NCCL " + io::printable(*l.nccl_version, 40) : "");
  if (c.algo || c.proto)
    std::cout << fmt::format("forced:{}{}\n",
                             c.algo ? fmt::format(" NCCL_ALGO={} ({})", io::printable(*c.algo, 40), c.algo_from) : "",
                             c.proto ? fmt::format(" NCCL_PROTO={} ({})", io::printable(*c.proto, 40), c.proto_from)
                                     : "");
  if (!c.fitted)
    std::cout << "  --no-fit: replayed on the topology as it is, nothing fitted\n";
  else if (c.nccl_model)
    for (const auto& k : c.constants)
      std::cout << fmt::format("  {} {:.6g} -> {:.6g}  (bounds {:.4g} .. {:.4g})\n", k.pointer, k.before, k.after, k.lo,
                               k.hi);
  else
    std::cout << fmt::format("  nic.effective_gbps -> {:.6g}, nic.latency_us -> {:.6g}\n", c.gbps, c.latency_us);
  for (const auto& w : c.warnings)
    std::cout << "WARNING " << w << "\n";
  for (const auto& n : c.notes)
    std::cout << "note: " << n << "\n";
  Table t({"size (B)", "measured (us)", "replayed (us)", "error (%)", "busbw meas. (GB/s)", "busbw repl. (GB/s)",
           "algorithm", "bound by"});
  for (const auto& r : c.rows)
    t.add_row({std::to_string(r.size) + (r.flagged ? " *" : ""), format_number(r.measured_us),
               format_number(r.predicted_us), format_number(100 * r.error(), 3), format_number(r.measured_busbw, 4),
               format_number(r.predicted_busbw, 4), r.algorithm + "/" + r.protocol, r.bottleneck});
  t.print(std::cout, table_width());
  const bool flagged = std::any_of(c.rows.begin(), c.rows.end(), [](const NcclCalibrationRow& r) { return r.flagged; });
  std::cout << fmt::format("median |error| {:.3g} %, worst {:.3g} %{}; {}\n", 100 * c.median_abs_error,
                           100 * c.worst_abs_error,
                           flagged ? " (rows marked * are bad measurements, out-of-place > 1.5 x in-place: not fitted "
                                     "or counted)"
                                   : "",
                           c.fitted ? "written to " + io::printable(out, 200) : "nothing written (--no-fit)");
  return 0;
}

int cmd_calibrate(const std::vector<std::string>& args)
{
  const auto given = parse_command(calibrate_options().options(), args);
  if (!given)
    return 0;
  const Format format            = output_format(*given);
  const CalibrateCommand command = build_calibrate(*given);
  if (command.steps)
    return calibrate_steps_command(command, format);
  const NcclCalibrationRequest req = command.nccl_request();
  const auto c = calibrate_nccl(req);
  if (format != Format::TABLE) { // json, or csv: a row per measured value
    const nlohmann::json doc = to_json(c, req.out);
    print_json_or_csv(format, doc, doc["rows"].get<std::vector<nlohmann::json>>());
    return 0;
  }
  return print_nccl_table(c, req.out);
}

} // namespace ccsim::cli
