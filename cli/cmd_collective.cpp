// `ccsim collective`: one collective over a size sweep on a simulated cluster, printed with nccl-tests' own columns
// (size count type redop root time algbw busbw #wrong, out-of-place and in-place) so a user can lay the simulated
// table beside the one all_reduce_perf printed on the real cluster; `ccsim calibrate` reads the same text.
#include "api/options/CollectiveCommand.hpp"
#include "cli/Command.hpp"
#include "cli/Options.hpp"
#include "cli/Progress.hpp"

#include <fmt/format.h>

#include <iostream>

namespace ccsim::cli {

namespace {
std::string bandwidth_text(double gbytes_per_s)
{
  return fmt::format("{:.6f}", gbytes_per_s);
}
} // namespace

int cmd_collective(const std::vector<std::string>& args)
{
  const auto given = parse_command(collective_options().options(), args);
  if (!given)
    return 0;
  const bool progress          = read_long_run_options(*given);
  const Format format          = output_format(*given);
  const CollectiveRequest req  = build_collective(*given);
  const ResolvedCollective run = resolve_collective(req);
  const auto* bench            = run.bench;
  const auto& topo             = run.topo;
  const auto& ranks            = run.ranks;
  const auto fidelity          = run.fidelity;
  Progress line("ccsim collective", progress);
  const char* fidelity_name = fidelity == sim::Fidelity::EXACT ? "exact" : "fast";
  const auto table          = run_collective_bench(topo, *bench, ranks, run.sizes, fidelity, run.with_kernels,
                                                   [&](int gpus, std::uint64_t done, std::uint64_t total) {
                                            line.update(fmt::format("{} {}, {} ranks", bench->name, fidelity_name, gpus),
                                                        static_cast<double>(done), static_cast<double>(total),
                                                        "messages");
                                          });
  line.finish();
  const nlohmann::json doc = to_json(table, *bench, topo, ranks, fidelity);
  if (print_json_or_csv(format, doc, doc["rows"].get<std::vector<nlohmann::json>>())) // CSV: the rows' fields
    return 0;
  // nccl-tests' layout (src/common.cu): '#' header lines, out-of-place then in-place columns (identical in a
  // simulation), "N/A" in #wrong as nccl-tests prints without data checks; wider number columns keep the precision.
  // One block per rank count, each as all_reduce_perf would print it on that many ranks.
  for (const auto n : ranks) {
    std::cout << fmt::format("# ccsim collective: {} on {} ({} ranks, {} per node), {} fidelity; simulated, so "
                             "in-place = out-of-place\n#\n",
                             bench->name, topo.name, n, topo.gpus_per_node, fidelity_name);
    std::cout << fmt::format("# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>38}  {:>38}\n", "", "", "", "", "",
                             "out-of-place", "in-place");
    const char* columns = "# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>13}  {:>10}  {:>10}  {:>6}  {:>13}  {:>10}  {:>10}  {:>6}\n";
    std::cout << fmt::format(fmt::runtime(columns), "size", "count", "type", "redop", "root", "time", "algbw", "busbw",
                             "#wrong", "time", "algbw", "busbw", "#wrong");
    std::cout << fmt::format(fmt::runtime(columns), "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "",
                             "(us)", "(GB/s)", "(GB/s)", "");
    double block_busbw = 0;
    int block_rows     = 0;
    for (const auto& r : table.rows) {
      if (r.ranks != n)
        continue;
      const std::string body = fmt::format("  {:>13.3f}  {:>10}  {:>10}  {:>6}", r.time_us,
                                           bandwidth_text(r.algbw_gbytes_per_s), bandwidth_text(r.busbw_gbytes_per_s),
                                           "N/A");
      std::cout << fmt::format("{:>12}  {:>12}  {:>8}  {:>6}  {:>6}", r.size, r.count(), "float", bench->nccl_redop, -1)
                << body << body << "\n";
      block_busbw += r.busbw_gbytes_per_s;
      ++block_rows;
    }
    std::cout << fmt::format("# Out of bounds values : 0 OK\n# Avg bus bandwidth    : {:.6f} \n", block_busbw / block_rows);
    // What ran, size range by size range (nccl-tests prints nothing of it; NCCL_DEBUG_SUBSYS=TUNING would).
    std::string ran, last;
    std::uint64_t first = 0, prev = 0;
    auto flush = [&] {
      if (!last.empty())
        ran += fmt::format("{}{}{} B {}", ran.empty() ? "" : ", ", first, first == prev ? "" : fmt::format("-{}", prev), last);
    };
    for (const auto& r : table.rows) {
      if (r.ranks != n || r.algorithm.empty())
        continue;
      const std::string what = r.algorithm + "/" + r.protocol;
      if (what != last) {
        flush();
        first = r.size;
        last  = what;
      }
      prev = r.size;
    }
    flush();
    if (!ran.empty())
      std::cout << "# Algorithm/protocol   : " << ran << "\n";
    std::cout << "#\n";
  }
  return 0;
}

} // namespace ccsim::cli
