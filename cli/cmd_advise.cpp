// `ccsim advise`: simulate every algorithm that fits the cluster and model, and rank them by time-to-accuracy: the
// steps each needs to reach its family's uncompressed target loss (relative to that baseline, measured on the proxy
// models: workloads/evidence/convergence.json) times its simulated time per step (warm-up phases included at their
// share). Algorithms that do not reach the target are listed last with the reason, never above one that does.
#include "api/options/AdviseCommand.hpp"
#include "api/output/Table.hpp"
#include "api/process/Spawn.hpp"
#include "cli/Command.hpp"
#include "cli/Options.hpp"
#include "cli/Progress.hpp"
#include "io/JsonInput.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

namespace ccsim::cli {

namespace {
/// "--tp 2 (32.1 GB, recomputing) or --tp 4 (31.7 GB)": the changes that make a run fit, with the GB per GPU each
/// needs.
std::string fits_with(const std::vector<MemoryFix>& fixes)
{
  std::vector<std::string> texts;
  for (const auto& f : fixes)
    texts.push_back(fmt::format("{} ({} GB{})", f.change, format_number(f.memory_gb_per_gpu, 3),
                                f.recompute ? ", recomputing" : ""));
  return texts.empty() ? "no change of ZeRO stage, tp, pp or micro-batch tried fits" : fmt::format("{}", fmt::join(texts, " or "));
}

/// Below the narrow table: what would make each algorithm that does not fit fit, algorithms with the same answer on
/// one line, so that no cell of the table wraps.
std::string fit_notes(const AdviseReport& report)
{
  std::vector<std::pair<std::string, std::vector<std::string>>> groups; // answer -> algorithms, first seen first
  for (const auto& c : report.cannot_run) {
    if (!c.memory)
      continue;
    const auto answer = fits_with(c.would_fit);
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == answer; });
    if (it == groups.end())
      it = groups.insert(groups.end(), {answer, {}});
    it->second.push_back(c.algorithm);
  }
  std::string out;
  for (const auto& [answer, names] : groups)
    out += wrap_text(fmt::format("To fit {}: {}", fmt::join(names, ", "), answer), table_width()) + "\n";
  return out;
}

/// Whether the family's baseline is among those that cannot run (speedups are then none).
bool baseline_cannot_run(const AdviseReport& report)
{
  return std::any_of(report.cannot_run.begin(), report.cannot_run.end(),
                     [&](const CannotRun& c) { return c.algorithm == report.baseline; });
}
} // namespace

int cmd_advise(const std::vector<std::string>& args)
{
  const auto given = parse_command(advise_options().options(), args);
  if (!given)
    return 0;
  const Format format = output_format(*given);
  const bool progress = read_long_run_options(*given);
  AdviseCommand req   = build_advise(*given);
  if (req.verify) {
    // The script reruns each row's `ccsim train` command with this binary; an argument vector, no shell.
    const auto script = std::filesystem::path(io::data_dir()) / "scripts" / "convergence-evidence.sh";
    const auto self   = std::filesystem::read_symlink("/proc/self/exe").string();
    if (run_program({"bash", script.string(), "--check", "--ccsim", self, "--out", req.evidence_file}) != 0) {
      std::cerr << "ccsim advise: --verify: " << io::echo(req.evidence_file) << " is not reproduced by its commands\n";
      return 1;
    }
  }
  Progress line("ccsim advise", progress);
  req.on_progress = [&](const std::string& what, std::size_t done, std::size_t total, const std::string& unit) {
    line.update(what, static_cast<double>(done), static_cast<double>(total), unit);
  };
  const AdviseReport report = advise(req);
  line.finish();
  write_advise_files(req, report);
  const nlohmann::json doc = to_json(report);
  if (print_json_or_csv(format, doc, doc["ranking"].get<std::vector<nlohmann::json>>())) // CSV: a row per algorithm
    return 0;
  const bool search = report.search;
  std::cout << wrap_text(fmt::format("{} on {} x {} GPUs, ranked by time-to-accuracy (the uncompressed baseline of each "
                                     "family reaches its target loss in {:.3g} samples; steps ratios measured on proxy "
                                     "models: {}); speedup over {}{}",
                                     report.workload, req.topology.name, req.shape.gpus, req.epoch_samples, req.evidence_file,
                                     baseline_cannot_run(report) ? report.baseline + ", which cannot run: none" : report.baseline,
                                     search ? ", each algorithm at its fastest split that fits" : ""),
                         table_width())
            << "\n";
  // Narrow (the default): the columns a choice needs, the verdict's numbers in short; --wide: every column.
  const bool wide = table_width() == 0;
  Table t = wide ? Table({"rank", "algorithm", "converges", "to accuracy (h)", "epoch (h)", "samples/s (likely range)",
                          "tokens/s (per GPU)", "by samples/s", "speedup (x)", "dp x tp x pp, micro-batch", "memory (GB/GPU)",
                          "inter-node per step (MB/GPU)", "why not"})
                 : Table({"rank", "algorithm", "converges", "to acc. (h)", "samples/s", "likely range", "tokens/s",
                          "speedup", "dp x tp x pp, micro", "GB/GPU", "gap to baseline [90 % interval]"});
  int rank = 1;
  for (const auto& r : report.ranking) {
    const bool known = r.converges.has_value();
    const std::string verdict = known ? to_string(*r.converges) : "no evidence";
    const std::string accuracy = r.time_to_accuracy_h ? format_number(*r.time_to_accuracy_h) : "-";
    const std::string split    = fmt::format("{} x {} x {}, {}{}{}{}", r.dp, r.tp, r.pp, r.micro_batch,
                                             r.vpp > 1 ? fmt::format(", vpp {}", r.vpp) : "",
                                             r.zero_stage ? fmt::format(", ZeRO {}", *r.zero_stage) : "",
                                             r.activation_recomputation ? " (recompute)"
                                             : r.recompute == "selective" ? " (selective recompute)"
                                                                          : "");
    if (!wide) {
      t.add_row({std::to_string(rank++), r.algorithm, verdict, accuracy, format_number(r.samples_per_s),
                 fmt::format("{}-{}", format_number(r.samples_per_s_range.low, 3),
                             format_number(r.samples_per_s_range.high, 3)),
                 r.tokens_per_s > 0 ? format_number(r.tokens_per_s) : "-", r.speedup > 0 ? format_number(r.speedup, 3) : "-", split, format_number(r.memory_gb_per_gpu, 3),
                 fmt::format("{}", fmt::join(r.evidence_short, "; "))});
      continue;
    }
    // The verdict with the numbers behind it: each evidence row's mean gap and its 90 % interval over the seeds.
    t.add_row({std::to_string(rank++), r.algorithm,
               known ? fmt::format("{} ({})", verdict, fmt::join(r.evidence, "; ")) : verdict, accuracy,
               format_number(r.epoch_time_s / 3600),
               fmt::format("{} ({}-{})", format_number(r.samples_per_s), format_number(r.samples_per_s_range.low, 3),
                           format_number(r.samples_per_s_range.high, 3)),
               r.tokens_per_s > 0
                   ? fmt::format("{} ({})", format_number(r.tokens_per_s), format_number(r.tokens_per_s_per_gpu))
                   : "-",
               std::to_string(r.throughput_rank), r.speedup > 0 ? format_number(r.speedup, 3) : "-", split,
               format_number(r.memory_gb_per_gpu, 3), format_number(r.inter_node_bytes_per_gpu / 1e6),
               known && *r.converges != Converges::YES ? r.reason : ""});
  }
  // Ranked last: those that cannot run. One refused for memory says what it needs and what would make it fit.
  for (const auto& c : report.cannot_run) {
    std::vector<std::string> cells(wide ? 13 : 11, "");
    cells[0] = "-", cells[1] = c.algorithm, cells.back() = "cannot run: " + c.reason;
    if (c.memory) {
      cells[wide ? 10 : 9] = format_number(c.memory->memory_gb_per_gpu, 3);
      cells.back()        = wide ? fmt::format("does not fit: {}; to fit: {}", c.reason, fits_with(c.would_fit))
                                   : fmt::format("does not fit in {} GB: see below", format_number(c.memory->usable_gb, 3));
    }
    t.add_row(cells);
  }
  t.print(std::cout, table_width());
  if (!wide)
    std::cout << fit_notes(report);
  if (!wide)
    std::cout << wrap_text("gap to baseline: final held-out loss over the family baseline's on the same seed, mean "
                           "over the seeds [its 90 % confidence interval] per proxy; converges is yes when the interval "
                           "lies within the claim's threshold, no when above it (workloads/evidence/convergence.json); "
                           "--wide adds the epoch time, the "
                           "rank by throughput alone, inter-node bytes and why not; --format json or csv has every "
                           "field",
                           table_width())
              << "\n";
  const auto& c = report.counts;
  if (search)
    std::cout << wrap_text(fmt::format("Searched {} (algorithm, split) candidates: {} simulated, {} pruned by memory (do "
                                       "not fit the GPUs even with activation recomputation), {} pruned by bound "
                                       "(their compute, or their busiest NIC's bytes at line rate, alone is slower than the algorithm's best simulated "
                                       "split), {} invalid{}.",
                                       c.candidates, c.simulated, c.pruned_by_memory, c.pruned_by_bound, c.invalid,
                                       c.left ? fmt::format(", {} left", c.left) : ""),
                           table_width())
              << "\n";
  if (report.partial)
    std::cout << wrap_text(fmt::format("Partial answer: the time limit came after {:.1f} s; {} of {} {} evaluated, {} "
                                       "left. The ranking is the best of those evaluated.",
                                       report.seconds, c.candidates - c.left, c.candidates,
                                       search ? "candidates" : "algorithms", c.left),
                           table_width())
              << "\n";
  return 0;
}

} // namespace ccsim::cli
