// `advise`'s option table and request builder (AdviseCommand.hpp).
#include "api/options/AdviseCommand.hpp"

#include "api/options/CommonOptions.hpp"
#include "api/output/PlotOutput.hpp"

#include "io/JsonInput.hpp"

namespace ccsim::api {

const OptionTable<AdviseCommand>& advise_options()
{
  static const OptionTable<AdviseCommand> table = [] {
    namespace r = io::range;
    using C     = AdviseCommand;
    auto lines  = terminal_lines<C>();
    append(lines, {
        {source_option("topology", "topology preset or JSON file").needed(), into(&C::topology)},
        {source_option("workload", "workload preset or JSON file").needed(), into(&C::workload)},
        {number_option("bandwidth-gbps", r::kLinkGbps, "override the inter-node bandwidth per node (Gbit/s)").value("X"),
         into(&C::shape, &SimulateRequest::bandwidth_gbps)},
        {number_option("epoch-samples", r::kEpochSamples,
                       "samples in one epoch (time per epoch = samples / throughput; the default 1e6 is a round "
                       "number, not the workload's dataset)")
             .defaults("1e6"),
         into(&C::epoch_samples)},
        {integer_option("jobs", r::kJobs, "simulations at once").defaults("2"), into(&C::jobs)},
        {path_option("evidence", "convergence evidence JSON (default: workloads/evidence/convergence.json)"),
         into(&C::evidence_file)},
        {flag_option("verify", "first rerun seed 1 of every comparison of the evidence file for 20 % of its steps and "
                               "check each held-out loss reproduces to the digit (about 4 minutes on 2 cores)")
             .command_line_only("it reruns the evidence file's `ccsim train` commands with the ccsim binary "
                                "(scripts/convergence-evidence.sh --check), which the Python package does not install"),
         into(&C::verify)},
        {flag_option("search", "for each algorithm, simulate every dp/tp/pp split and micro-batch that fits the GPUs' "
                               "memory at the same global batch, and rank each at its fastest (tp within a node, whole "
                               "layers per stage); splits that cannot fit the GPUs' memory or whose compute alone is "
                               "slower than the best simulated split are pruned"),
         into(&C::search)},
        {flag_option("no-prune", "with --search, simulate every split that fits (no pruning by the compute bound)"),
         [](C& c, const GivenValue&, const Option&) { c.prune = false; }},
        {list_option("tp", r::kParallelDegree, 1024, "only these tensor-parallel degrees, e.g. 4,8 (several need --search)")
             .value("LIST"),
         into(&C::tp)},
        {list_option("pp", r::kParallelDegree, 1024, "only these pipeline depths, e.g. 2,4 (several need --search)")
             .value("LIST"),
         into(&C::pp)},
        {list_option("zero", r::kZeroStage, 4,
                     "ZeRO stages, e.g. 1,3: each algorithm runs at these where it has them, else at its own "
                     "(several need --search; --search without it tries every stage an algorithm runs)")
             .value("LIST"),
         into(&C::zero)},
        {list_option("vpp", r::kParallelDegree, 1024,
                     "model chunks per pipeline stage, e.g. 1,2 (interleaved 1F1B; several need --search; --search "
                     "without it tries every whole number of layers per chunk at pp >= 2)")
             .value("LIST"),
         into(&C::vpp)},
        {list_option("algorithms", std::nullopt, 0, "only these algorithms, e.g. adam,onebit-adam").value("LIST"),
         into(&C::algorithms)},
        {path_option("plot", "draw the time-to-accuracy ranking beside the throughput-only one into DIR (PNG + SVG, "
                             "with advise.json)")
             .value("DIR"),
         into(&C::plot_dir)},
    });
    append(lines, shape_lines<C>(/*parallelism=*/false, &C::shape));
    append(lines, long_run_lines<C>("stop evaluating after this many seconds (counted from the start) and rank the "
                                    "best of what finished, saying the answer is partial (exit 0)"));
    return OptionTable<C>("advise", "", "advise", std::move(lines));
  }();
  return table;
}

AdviseCommand build_advise(const GivenValues& given)
{
  AdviseCommand c = advise_options().fill(given);
  if (!given.has("evidence")) // given, even empty, it is the file to read (and an empty name is its error)
    c.evidence_file = default_evidence_path();
  (void)load_convergence_evidence(c.evidence_file); // its own one-line errors before --verify's minutes of training
  if (!c.search && !c.prune)
    throw io::InputError("--no-prune", "", "only --search prunes: give --search too");
  return c;
}

void write_advise_files(const AdviseCommand& c, const AdviseReport& report)
{
  if (c.plot_dir)
    plot_into(*c.plot_dir, "advise.json", to_json(report), "advise_ranking.py", "advise", "the ranking figure");
}

} // namespace ccsim::api
