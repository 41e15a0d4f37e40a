// `ccsim train`: genuine convergence runs of proxy models with N in-process workers through the real
// compressors; with --topology/--gpus also loss against simulated cluster time (time-to-accuracy).
#include "api/options/TrainCommand.hpp"
#include "api/output/Table.hpp"
#include "api/process/RunControl.hpp"
#include "cli/Command.hpp"
#include "cli/Options.hpp"
#include "cli/Progress.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iostream>
#include <optional>

namespace ccsim::cli {

int cmd_train(const std::vector<std::string>& args)
{
  const auto given = parse_command(train_options().options(), args);
  if (!given)
    return 0;
  const Format format = output_format(*given);
  const bool progress = read_long_run_options(*given);
  TrainCommand req    = build_train(*given);
  const auto& algorithm_list = req.algorithms;
  // One progress line per piece of work (the pre-training, then each algorithm).
  std::optional<Progress> line;
  std::string current;
  req.on_progress = [&](const std::string& what, double done, double total, const std::string& unit,
                        const std::string& note) {
    if (!line || what != current) {
      line.reset();
      line.emplace("ccsim train", progress);
      current = what;
    }
    line->update(what, done, total, unit, 0, note);
  };
  req.on_note = [&](const std::string& note) {
    if (line)
      line->finish();
    std::cerr << "ccsim train: " << note << "\n";
  };
  const auto outcome = train_algorithms(req);
  line.reset();
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& r : outcome.runs)
    runs.push_back(to_json(r));
  const std::string& stopped = outcome.stopped;
  for (const auto& warning : learning_rate_warnings(outcome))
    std::cerr << "ccsim train: warning: " << warning << "\n";

  // Past --time-limit: what finished is printed (a stopped run with complete: false), then one line and exit 3.
  const nlohmann::json doc = algorithm_list.size() == 1 && runs.size() == 1 ? runs[0] : nlohmann::json{{"runs", runs}};
  write_train_files(req, runs);
  const std::string stop_note =
      stopped + (runs.size() < algorithm_list.size() ? fmt::format(", {} of {} algorithms not run",
                                                                   algorithm_list.size() - runs.size(), algorithm_list.size())
                                                     : "");
  // CSV: a row per algorithm; the loss curves stay in the JSON.
  if (print_json_or_csv(format, doc, runs.get<std::vector<nlohmann::json>>(), {"loss_curve", "time_curve"})) {
    if (!stopped.empty())
      throw stop_exception(stop_note);
    return 0;
  }
  Table t({"algorithm", "lr", "final held-out loss", "bytes/worker (MB)", "wall (s)"});
  for (const auto& run : outcome.runs)
    t.add_row({run.algorithm + (run.complete ? "" : fmt::format(" (step {})", run.steps_done)),
               fmt::format("{:g}", run.lr),
               !run.diverged_at_step ? format_number(run.final_loss, 5)
                                     : fmt::format("diverged (not finite from step {})", *run.diverged_at_step),
               format_number(static_cast<double>(run.bytes_per_worker) / 1e6), format_number(run.wall_s, 3)});
  t.print(std::cout, table_width());
  // Which of the papers' settings ran because --param did not set them, once per setting with the algorithms.
  std::vector<std::pair<std::string, std::vector<std::string>>> defaults;
  for (const auto& run : outcome.runs)
    for (const auto& d : run.defaults) {
      const std::string line = fmt::format("{}={} ({})", d.key, d.text, d.source);
      auto it = std::find_if(defaults.begin(), defaults.end(), [&](const auto& e) { return e.first == line; });
      if (it == defaults.end())
        it = defaults.insert(defaults.end(), {line, {}});
      it->second.push_back(run.algorithm);
    }
  if (!defaults.empty())
    std::cout << "defaults that ran (--param sets them otherwise):\n";
  for (const auto& [line, algorithms] : defaults)
    std::cout << fmt::format("  {}: {}\n", fmt::join(algorithms, ", "), line);
  if (!stopped.empty())
    throw stop_exception(stop_note);
  return 0;
}

} // namespace ccsim::cli
