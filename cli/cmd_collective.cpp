// `ccsim collective`: one collective over a size sweep on a simulated cluster, printed with nccl-tests' own columns
// (size count type redop root time algbw busbw #wrong, out-of-place and in-place) so a user can lay the simulated
// table beside the one all_reduce_perf printed on the real cluster; `ccsim calibrate` reads the same text.
#include "algorithms/CollectiveOps.hpp"
#include "api/output/Csv.hpp"
#include "api/run/CollectiveSweep.hpp"
#include "cli/Command.hpp"
#include "cli/Options.hpp"
#include "cli/Progress.hpp"
#include "sim/engine/StepEngine.hpp"
#include "io/JsonInput.hpp"

#include <fmt/format.h>

#include <cmath>
#include <optional>
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
  po::options_description desc("ccsim collective options");
  desc.add_options()("help,h", "show this help and exit")(
      "format", po::value<std::string>()->default_value("table"), "output: table (nccl-tests' columns), json or csv")(
      "op", po::value<std::string>()->default_value("all_reduce"),
      ("collective: " + algorithms::collective_bench_names()).c_str())(
      "topology", po::value<std::string>()->required(), "topology preset or JSON file")(
      "gpus", po::value<std::string>()->required()->value_name("N[,N...]"),
      "ranks in the collective (nccl-tests' -g x processes); a comma-separated list sweeps them too")(
      "minbytes,b", po::value<std::string>()->default_value("8"), "smallest size, bytes (K/M/G suffixes are powers of 1024)")(
      "maxbytes,e", po::value<std::string>()->default_value("128M"), "largest size")(
      "stepfactor,f", po::value<std::string>()->default_value("2"), "multiply the size by this each step (1: add minbytes)")(
      "fidelity", po::value<std::string>()->default_value("fast"), "exact (every ring round) or fast (bulk flows)")(
      "bandwidth-gbps", po::value<std::string>()->value_name("X"), "override the inter-node bandwidth per node (Gbit/s)")(
      "latency-us", po::value<std::string>()->value_name("L"), "override the one-way NIC latency (microseconds)")(
      "with-kernels", po::bool_switch(), "compressed collectives: count their compression kernels in the time")(
      "algo", po::value<std::string>()->value_name("A"),
      "run only this algorithm, as NCCL_ALGO does: ring, tree, nvls, nvls_tree (topologies with an \"nccl\" block) "
      "or hierarchical")(
      "proto", po::value<std::string>()->value_name("P"), "run only this protocol, as NCCL_PROTO does: LL, LL128, Simple");
  add_long_run_options(desc, /*time_limit=*/false);
  po::variables_map vm;
  if (!parse_options("collective", args, desc, vm))
    return 0;
  const bool progress      = read_long_run_options(vm);
  const std::string format = choice_flag(vm, "format", {"table", "json", "csv"});
  const std::string op     = vm["op"].as<std::string>();
  const auto* bench        = algorithms::find_collective_bench(op);
  if (bench == nullptr)
    throw io::InputError("--op", "", io::echo(op) + " is not one of: " + algorithms::collective_bench_names());
  const auto lo     = static_cast<std::uint64_t>(*size_flag(vm, "minbytes", io::range::kCollectiveBytes));
  const auto hi     = static_cast<std::uint64_t>(*size_flag(vm, "maxbytes", io::range::kCollectiveBytes));
  const auto factor = static_cast<std::uint64_t>(*integer_flag(vm, "stepfactor", io::range::kStepFactor));
  if (hi < lo)
    throw io::InputError("--maxbytes", "", fmt::format("{} is below --minbytes {}", hi, lo));
  const auto fidelity = choice_flag(vm, "fidelity", {"exact", "fast"}) == "exact" ? sim::Fidelity::EXACT
                                                                                   : sim::Fidelity::FAST;
  sim::Topology topo = sim::load_topology(io::resolve_preset("topologies", vm["topology"].as<std::string>(), "--topology"));
  if (const auto bw = number_flag(vm, "bandwidth-gbps", io::range::kLinkGbps))
    sim::override_inter_node_bandwidth(topo, *bw);
  if (const auto lat = number_flag(vm, "latency-us", io::range::kLatencyUs))
    sim::override_inter_node_latency(topo, *lat);
  auto text_flag = [&](const char* name) {
    return vm.count(name) ? std::optional<std::string>(vm[name].as<std::string>()) : std::nullopt;
  };
  force_collective(topo, text_flag("algo"), text_flag("proto"));
  const auto rank_counts = integer_list_flag(vm, "gpus", io::Range{2, io::range::kGpus.hi}, 64);
  for (const auto n : rank_counts)
    if (n > topo.max_gpus())
      throw io::InputError("--gpus", "", fmt::format("{} GPUs requested but topology {} has {}", n, topo.name,
                                                     topo.max_gpus()));

  const auto sizes = sweep_sizes(lo, hi, factor);
  std::vector<int> ranks;
  for (const auto n : rank_counts)
    ranks.push_back(static_cast<int>(n));
  Progress line("ccsim collective", progress);
  const char* fidelity_name = fidelity == sim::Fidelity::EXACT ? "exact" : "fast";
  const auto table          = run_collective_bench(topo, *bench, ranks, sizes, fidelity, vm["with-kernels"].as<bool>(),
                                                   [&](int gpus, std::uint64_t done, std::uint64_t total) {
                                            line.update(fmt::format("{} {}, {} ranks", bench->name, fidelity_name, gpus),
                                                        static_cast<double>(done), static_cast<double>(total),
                                                        "messages");
                                          });
  line.finish();
  const nlohmann::json doc = to_json(table, *bench, topo, ranks, fidelity);
  if (format == "json") {
    std::cout << io::dump_json(doc, 2) << "\n";
    return 0;
  }
  if (format == "csv") { // the rows' fields as columns (api/output/Csv.hpp)
    write_csv(std::cout, doc["rows"].get<std::vector<nlohmann::json>>());
    return 0;
  }
  // nccl-tests' layout (src/common.cu): '#' header lines, out-of-place then in-place columns (identical in a
  // simulation), "N/A" in #wrong as nccl-tests prints without data checks; wider number columns keep the precision.
  // One block per rank count, each as all_reduce_perf would print it on that many ranks.
  for (const auto n : rank_counts) {
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
