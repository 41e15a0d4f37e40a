// `collective`'s option table and request builder (CollectiveCommand.hpp). Its flags are nccl-tests' own where it has
// one (-b, -e, -f, sizes with K/M/G), so a sweep reads as all_reduce_perf's command line.
#include "api/options/CollectiveCommand.hpp"

#include "algorithms/CollectiveOps.hpp"
#include "api/options/CommonOptions.hpp"

namespace ccsim::api {

const OptionTable<CollectiveRequest>& collective_options()
{
  static const OptionTable<CollectiveRequest> table = [] {
    namespace r = io::range;
    using C     = CollectiveRequest;
    std::vector<OptionTable<C>::Line> lines = {
        {help_option(), {}},
        {format_option("output: table (nccl-tests' columns), json or csv"), {}},
        {text_option("op", "collective: " + algorithms::collective_bench_names()).defaults("all_reduce"), into(&C::op)},
        {source_option("topology", "topology preset or JSON file").needed(), into(&C::topology)},
        {list_option("gpus", io::Range{2, r::kGpus.hi}, 64,
                     "ranks in the collective (nccl-tests' -g x processes); a comma-separated list sweeps them too")
             .needed()
             .value("N[,N...]"),
         into(&C::gpus)},
        {size_option("minbytes", r::kCollectiveBytes, "smallest size, bytes (K/M/G suffixes are powers of 1024)")
             .alias('b')
             .defaults("8"),
         into(&C::minbytes)},
        {size_option("maxbytes", r::kCollectiveBytes, "largest size").alias('e').defaults("128M"), into(&C::maxbytes)},
        {integer_option("stepfactor", r::kStepFactor, "multiply the size by this each step (1: add minbytes)")
             .alias('f')
             .defaults("2"),
         into(&C::stepfactor)},
        {choice_option("fidelity", {"exact", "fast"}, "exact (every ring round) or fast (bulk flows)").defaults("fast"),
         into(&C::fidelity)},
        {number_option("bandwidth-gbps", r::kLinkGbps, "override the inter-node bandwidth per node (Gbit/s)").value("X"),
         into(&C::bandwidth_gbps)},
        {number_option("latency-us", r::kLatencyUs, "override the one-way NIC latency (microseconds)").value("L"),
         into(&C::latency_us)},
        {flag_option("with-kernels", "compressed collectives: count their compression kernels in the time"),
         into(&C::with_kernels)},
        {text_option("algo", "run only this algorithm, as NCCL_ALGO does: ring, tree, nvls, nvls_tree (topologies with "
                             "an \"nccl\" block) or hierarchical")
             .value("A"),
         into(&C::algo)},
        {text_option("proto", "run only this protocol, as NCCL_PROTO does: LL, LL128, Simple").value("P"),
         into(&C::proto)},
    };
    append(lines, long_run_lines<C>(""));
    return OptionTable<C>("collective", "", "collective", std::move(lines));
  }();
  return table;
}

CollectiveRequest build_collective(const GivenValues& given) { return collective_options().fill(given); }

} // namespace ccsim::api
