// `calibrate`'s option table and request builder (CalibrateCommand.hpp).
#include "api/options/CalibrateCommand.hpp"

#include "api/options/CommonOptions.hpp"
#include "sim/platform/Topology.hpp"

#include "io/JsonInput.hpp"

namespace ccsim::api {

NcclCalibrationRequest CalibrateCommand::nccl_request() const
{
  NcclCalibrationRequest req;
  req.topology    = topology;
  req.files       = nccl_tests;
  req.op          = op;
  req.algo        = algo;
  req.proto       = proto;
  req.tuner_table = tuner_table;
  req.ranks       = ranks;
  req.fidelity    = fidelity == "exact" ? sim::Fidelity::EXACT : sim::Fidelity::FAST;
  req.out         = out;
  req.fit         = !no_fit;
  return req;
}

const OptionTable<CalibrateCommand>& calibrate_options()
{
  static const OptionTable<CalibrateCommand> table = [] {
    using C = CalibrateCommand;
    std::vector<OptionTable<C>::Line> lines = {
        {help_option(), {}},
        {format_option("output: table (for people), json (one document) or csv (its rows)"), {}},
        {preset_option("topology", "the cluster's topology preset or JSON file to start from").needed(),
         into(&C::topology)},
        {path_option("nccl-tests", "text output of nccl-tests (all_reduce_perf, all_gather_perf, sendrecv_perf, ...) as "
                                   "the run printed it, or of ccsim collective; repeat it for several logs of the same "
                                   "cluster (e.g. 1 and 2 nodes) fitted together")
             .repeatable()
             .value("FILE"),
         into(&C::nccl_tests)},
        {preset_option("steps", "measured step times (or any experiment metric) per configuration, in the experiment "
                                "format (experiments/SCHEMA.md: each row's \"paper\" holds the measurement); every row "
                                "runs on --topology")
             .value("FILE"),
         into(&C::steps)},
        {text_option("fit", "with --steps: a constant of the topology to fit, as a JSON pointer (repeatable; default "
                            "/gpu/sustained_tflops and /nic/effective_gbps)")
             .repeatable()
             .value("POINTER"),
         into(&C::fit)},
        {integer_option("jobs", io::range::kJobs, "with --steps: simulations at once").defaults("2"), into(&C::jobs)},
        {path_option("out", "where to write the calibrated topology (needed unless --no-fit)")
             .value("NEW.json")
             .positional_in_python(),
         into(&C::out)},
        {flag_option("no-fit", "with --nccl-tests: replay the logs on --topology as it is, fitting and writing nothing "
                               "(how well a calibrated topology, or a preset, predicts other logs of the cluster, e.g. "
                               "of more nodes)"),
         into(&C::no_fit)},
        {text_option("op", "the collective measured, where a log's header does not name it (all_reduce, ...; it "
                           "replaces what the log's columns suggest)"),
         into(&C::op)},
        {integer_option("ranks", io::Range{2, io::range::kGpus.hi},
                        "ranks in the measurement, where a log shows none (no Rank lines, a bus factor of 1)")
             .value("N"),
         into(&C::ranks)},
        {choice_option("fidelity", {"exact", "fast"}, "fidelity of the replay: exact or fast").defaults("fast"),
         into(&C::fidelity)},
        {text_option("algo", "NCCL_ALGO the logs ran with (ring, tree, nvls, nvls_tree); a log's NCCL_DEBUG=INFO "
                             "line stating it is read by itself").value("A"),
         into(&C::algo)},
        {text_option("proto", "NCCL_PROTO the logs ran with (LL, LL128, Simple); likewise").value("P"),
         into(&C::proto)},
        {path_option("tuner-table", "a tuner plugin's choices by size, as {\"tuner_table\": [{\"max_bytes\": B, "
                                    "\"algorithm\": A, \"protocol\": P, \"channels\": C}, ...]} (topologies/SCHEMA.md); "
                                    "kept in the calibrated topology")
             .value("FILE"),
         into(&C::tuner_table)},
        {wide_option(), {}},
    };
    return OptionTable<C>("calibrate", "", "calibrate", std::move(lines));
  }();
  return table;
}

CalibrateCommand build_calibrate(const GivenValues& given)
{
  CalibrateCommand c = calibrate_options().fill(given);
  c.topology_path    = io::resolve_preset("topologies", c.topology, "--topology");
  (void)sim::load_topology(c.topology_path); // its own one-line errors first
  if (given.has("nccl-tests") == given.has("steps"))
    throw io::InputError("--nccl-tests", "",
                         "give --nccl-tests FILE (collective constants from nccl-tests logs) or --steps FILE (any "
                         "constants from step times); for both, run calibrate twice, the second from the first's --out");
  if (given.has("no-fit")) {
    if (given.has("steps"))
      throw io::InputError("--no-fit", "",
                           "replays --nccl-tests logs; for step times on a topology as it is, run `ccsim experiment` "
                           "on the file with its base topology");
    if (given.has("out"))
      throw io::InputError("--out", "", "--no-fit fits nothing, so it writes no topology: leave --out out");
  } else if (!given.has("out"))
    throw io::InputError("--out", "",
                         "is required but missing (where the calibrated topology goes; --no-fit only replays the logs)");
  if (given.has("fit") && !given.has("steps"))
    throw io::InputError("--fit", "", "chooses the constants of --steps; --nccl-tests fits what its logs can see");
  for (const char* name : {"algo", "proto", "tuner-table", "op", "ranks"})
    if (given.has(name) && given.has("steps"))
      throw io::InputError(std::string("--") + name, "", "goes with --nccl-tests, not --steps");
  if (c.steps) {
    // A path, or an experiment's name: the presets' own calibration tables regenerate their constants this way.
    c.steps = io::resolve_preset("experiments", *c.steps, "--steps");
    if (c.fit.empty())
      c.fit = {"/gpu/sustained_tflops", "/nic/effective_gbps"};
  }
  return c;
}

} // namespace ccsim::api
