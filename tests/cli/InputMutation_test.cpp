// Issue 11's contract under attack: every preset (topologies, workloads, experiments), mutated at every JSON pointer
// (type swaps, deletions, extremes, overflow, 1e999, NaN, bad UTF-8, huge and non-UTF-8 keys, 100,000-deep nesting,
// truncation; tests/support/Mutations.hpp), either loads with every number in range or is rejected with one
// InputError line naming the file. Then a deterministic sample of the topology and workload mutations goes through
// `ccsim simulate` end to end: exit 0 with finite numbers, or exit 2 with one `ccsim: ` line — never a crash, a
// hang, another exit code or a multi-line reject.
#include "api/calibration/CalibrationFits.hpp"
#include "api/advise/ConvergenceEvidence.hpp"
#include "api/experiment/Experiment.hpp"
#include "api/experiment/PointChecks.hpp"
#include "api/experiment/ResultLog.hpp"
#include "api/run/ReportJson.hpp"
#include "cli/Progress.hpp"
#include "sim/platform/Topology.hpp"
#include "sim/model/Workload.hpp"
#include "api/options/OptionText.hpp"
#include "api/process/ExitCodes.hpp"
#include "api/process/RunControl.hpp"
#include "io/JsonInput.hpp"
#include "tests/support/Mutations.hpp"
#include "tests/support/Processes.hpp"

#include <algorithm>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>

namespace fs = std::filesystem;
using ccsim::test::Mutation;
using ccsim::test::mutations_of;

namespace {

std::vector<fs::path> presets(const std::string& kind)
{
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(fs::path(ccsim::io::data_dir()) / kind))
    if (e.path().extension() == ".json")
      out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

nlohmann::json read_preset(const fs::path& p)
{
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

void write_bytes(const std::string& path, const std::string& text)
{
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

/// A lower bound on a count of rejected mutations, for the sample the tests run (tests/support/Mutations.hpp).
int sampled_count(int all_cases)
{
  return all_cases / static_cast<int>(ccsim::test::mutation_stride());
}

struct Tally {
  int accepted = 0, rejected = 0;
};

/// Loads every mutation of every preset of `kind` (those `only` accepts, when given) with `load`; each must load or
/// throw a one-line InputError that names the file.
Tally mutate_in_process(const std::string& kind, const std::function<void(const std::string&)>& load,
                        const std::function<bool(const nlohmann::json&)>& only = {})
{
  Tally t;
  // "workloads/evidence" -> mutated-workloads-evidence.json: a '/' would name a folder that does not exist, and every
  // mutation would be "rejected" for a missing file.
  std::string flat = kind;
  std::replace(flat.begin(), flat.end(), '/', '-');
  const std::string path = (ccsim::test::temp_dir() / ("mutated-" + flat + ".json")).string();
  ccsim::test::MutationSample sample;
  for (const auto& preset : presets(kind)) {
    const auto doc = read_preset(preset);
    if (only && !only(doc))
      continue;
    for (const auto& m : mutations_of(doc)) {
      if (!sample.runs_next())
        continue;
      write_bytes(path, m.text);
      INFO(preset.filename().string() << " " << m.label);
      try {
        load(path);
        CHECK(m.duplicate_key.empty()); // a key given twice is never accepted
        ++t.accepted;
      } catch (const ccsim::io::InputError& e) {
        const std::string msg = e.what();
        INFO(msg.substr(0, 300));
        CHECK(msg.find('\n') == std::string::npos);
        CHECK(msg.find(path) != std::string::npos);
        CHECK(msg.size() < 2000);
        if (!m.duplicate_key.empty())
          CHECK(msg == path + ": " + m.duplicate_key + ": appears twice in one object (JSON would keep only the last; "
                                                        "remove one)");
        ++t.rejected;
      } catch (const std::exception& e) {
        FAIL("not an InputError: " << e.what());
      }
    }
  }
  return t;
}

/// Every number in `v` finite (nlohmann writes NaN and inf as null, so a null where a number belongs shows too).
bool all_finite(const nlohmann::json& v)
{
  if (v.is_number())
    return std::isfinite(v.get<double>());
  if (v.is_structured())
    for (const auto& c : v)
      if (!all_finite(c))
        return false;
  return true;
}

struct CliRun {
  int exit_code;
  std::string out, err;
};

/// Runs ccsim with a 60 s limit; a hang is killed and reported as exit -1.
CliRun run_limited(const std::vector<std::string>& args)
{
  const auto out = (ccsim::test::temp_dir() / "mut-out.txt").string();
  const auto err = (ccsim::test::temp_dir() / "mut-err.txt").string();
  const pid_t pid = ccsim::test::start_ccsim(args, out, err);
  const bool done = ccsim::test::wait_until([&] { return ccsim::test::process_gone(pid); }, 60);
  if (!done)
    kill(pid, SIGKILL);
  const int code = ccsim::test::wait_exit(pid);
  return {done ? code : -1, ccsim::test::read_file(out), ccsim::test::read_file(err)};
}

/// Runs a deterministic sample of about `count` mutations of every preset of `kind` through `simulate`, the file
/// passed with `flag`, the other inputs in `rest`.
using RestArgs = std::function<std::vector<std::string>(const nlohmann::json& preset)>;

void mutate_on_command_line(const std::string& kind, const std::string& flag, const RestArgs& rest_of,
                            std::size_t count)
{
  struct Case {
    std::string preset;
    Mutation m;
    std::vector<std::string> rest;
  };
  const std::string path = (ccsim::test::temp_dir() / ("cli-" + kind + ".json")).string();
  std::vector<Case> all;
  for (const auto& preset : presets(kind)) {
    // The unmutated preset must run, or the sample tests nothing.
    const auto doc  = read_preset(preset);
    const auto rest = rest_of(doc);
    write_bytes(path, doc.dump(1));
    std::vector<std::string> args = {"simulate", flag, path, "--format", "json", "--quiet"};
    args.insert(args.end(), rest.begin(), rest.end());
    const auto base = run_limited(args);
    INFO(preset.filename().string() << ": " << base.err);
    REQUIRE(base.exit_code == 0);
    for (auto& m : mutations_of(doc))
      all.push_back({preset.filename().string(), std::move(m), rest});
  }
  // A prime stride walks across presets, pointers and kinds of mutation alike.
  const std::size_t sample = std::max<std::size_t>(1, count / ccsim::test::mutation_stride());
  const std::size_t stride = std::max<std::size_t>(1, all.size() / sample) | 1;
  int ok = 0, rejected = 0;
  for (std::size_t i = 0; i < all.size(); i += stride) {
    const auto& [preset, m, rest] = all[i];
    write_bytes(path, m.text);
    std::vector<std::string> args = {"simulate", flag, path, "--format", "json", "--quiet"};
    args.insert(args.end(), rest.begin(), rest.end());
    const auto r = run_limited(args);
    INFO(preset << " " << m.label << "\nstderr: " << r.err.substr(0, 600));
    if (r.exit_code == 0) {
      const auto doc = nlohmann::json::parse(r.out, nullptr, false);
      REQUIRE_FALSE(doc.is_discarded());
      CHECK(all_finite(doc));
      CHECK(doc.at("step_time_s").get<double>() > 0);
      ++ok;
    } else {
      CHECK(r.exit_code == 2);
      CHECK(ccsim::test::line_count(r.err) == 1);
      CHECK(r.err.rfind("ccsim: ", 0) == 0);
      ++rejected;
    }
  }
  WARN(kind << ": " << ok << " mutations ran, " << rejected << " were rejected with one line");
  CHECK(rejected > 0);
}

} // namespace

TEST_CASE("Mutated presets: every topology mutation loads in range or is one line naming the file", "[mutation]")
{
  const auto t = mutate_in_process("topologies", [](const std::string& p) { (void)ccsim::sim::load_topology(p); });
  WARN("topologies: " << t.accepted << " mutations loaded, " << t.rejected << " rejected");
  // The mutations are mostly wrong on purpose; a loader accepting them all is broken.
  CHECK(t.rejected > sampled_count(1000));
}

TEST_CASE("Mutated presets: every workload mutation loads in range or is one line naming the file", "[mutation]")
{
  const auto t = mutate_in_process("workloads", [](const std::string& p) { (void)ccsim::sim::load_workload(p); });
  WARN("workloads: " << t.accepted << " mutations loaded, " << t.rejected << " rejected");
  CHECK(t.rejected > sampled_count(1000));
}

TEST_CASE("Mutated presets: every mutation of the large-scale workloads and cluster loads or is one line naming the "
          "file",
          "[mutation]")
{
  // experiments/large-scale holds the validation rows' own workloads (two name a training stack, defaults.framework)
  // and BLOOM's cluster (whose compute block has the stack's share, gpu.compute.framework_efficiency).
  const auto cluster  = [](const nlohmann::json& doc) { return doc.contains("gpu"); };
  const auto workload = [](const nlohmann::json& doc) { return !doc.contains("gpu"); };
  const auto t = mutate_in_process("experiments/large-scale",
                                   [](const std::string& p) { (void)ccsim::sim::load_topology(p); }, cluster);
  const auto w = mutate_in_process("experiments/large-scale",
                                   [](const std::string& p) { (void)ccsim::sim::load_workload(p); }, workload);
  WARN("large-scale: cluster " << t.accepted << " loaded, " << t.rejected << " rejected; workloads " << w.accepted
                               << " loaded, " << w.rejected << " rejected");
  CHECK(t.rejected > 0);
  CHECK(t.accepted > 0);
  CHECK(w.rejected > 0);
  CHECK(w.accepted > 0);
}

TEST_CASE("Mutated presets: every experiment mutation loads in range or is one line naming the file", "[mutation]")
{
  // A mutation that loads then has every point resolved, as experiment does before the first runs
  // (api/experiment/PointChecks.hpp): each point answers "" or one line, never a crash.
  std::size_t points = 0, cannot_run = 0;
  const auto t = mutate_in_process("experiments", [&](const std::string& p) {
    const auto e      = ccsim::api::load_experiment(p);
    const auto errors = ccsim::api::point_input_errors(e);
    REQUIRE(errors.size() == e.points.size());
    for (const auto& err : errors) {
      CHECK(err.find('\n') == std::string::npos);
      ++points;
      cannot_run += !err.empty();
    }
  });
  WARN("experiments: " << t.accepted << " mutations loaded, " << t.rejected << " rejected; of the loaded ones' "
                       << points << " points, " << cannot_run << " cannot run");
  CHECK(t.rejected > sampled_count(1000));
  CHECK(cannot_run > 0);
}

TEST_CASE("Mutated results lines: every mutation of a line is rejected or reads back as the same report", "[mutation]")
{
  // A real results line, then every mutation of it (tests/support/Mutations.hpp) as one line of a log: --resume may
  // reuse a mutated line only if it says exactly what the original says (issue 33); everything else is rejected
  // with a reason or skipped as unreadable, and reading never throws.
  const auto file = ccsim::test::write_temp_file("mut-log.json", R"({"name": "mut-log", "base": {"topology":
    "a100x8-ib100", "workload": "bert-large", "gpus": 16, "algorithm": "onebit-adam"}})");
  const std::string dir = (ccsim::test::temp_dir() / "mut-log").string();
  REQUIRE(ccsim::test::run_ccsim("experiment " + file + " --no-plot --quiet --out " + dir).exit_code == 0);
  std::string text = ccsim::test::read_file(dir + "/results.jsonl");
  REQUIRE(!text.empty());
  text.pop_back(); // the newline
  const auto original = nlohmann::json::parse(text);
  auto without_wall   = [](nlohmann::json r) {
    r["sim"].erase("wall_s");
    return r;
  };
  const auto expected = without_wall(original["result"]);
  const std::string log = (ccsim::test::temp_dir() / "mut-log.jsonl").string();
  int reused = 0, rejected = 0, unreadable = 0;
  ccsim::test::MutationSample sample;
  for (auto m : mutations_of(original)) {
    if (!sample.runs_next())
      continue;
    std::replace(m.text.begin(), m.text.end(), '\n', ' '); // JSON whitespace: one line, the same document
    write_bytes(log, m.text + "\n");
    INFO(m.label);
    ccsim::api::StoredResults stored;
    REQUIRE_NOTHROW(stored = ccsim::api::read_result_logs({log}));
    rejected += static_cast<int>(stored.rejected.size());
    unreadable += static_cast<int>(stored.unreadable);
    for (const auto& [hash, lines] : stored.by_hash)
      for (const auto& line : lines) {
        CHECK(hash == original["config_hash"]);
        CHECK(without_wall(ccsim::api::to_json(line.report)) == expected);
        ++reused;
      }
  }
  WARN("results line: " << reused << " mutations reused (same report), " << rejected << " rejected, " << unreadable
                        << " unreadable");
  CHECK(rejected > sampled_count(500));
}

TEST_CASE("Mutated presets: every mutation of the convergence evidence loads or is one line naming the file",
          "[mutation]")
{
  const auto t = mutate_in_process("workloads/evidence",
                                   [](const std::string& p) { (void)ccsim::api::load_convergence_evidence(p); });
  WARN("convergence evidence: " << t.accepted << " mutations loaded, " << t.rejected << " rejected");
  CHECK(t.rejected > sampled_count(1000));
}

TEST_CASE("Mutated presets: every mutation of the calibration fits loads or is one line naming the file",
          "[mutation]")
{
  const auto t = mutate_in_process("experiments/calibration",
                                   [](const std::string& p) { (void)ccsim::api::load_calibration_fits(p); });
  WARN("calibration fits: " << t.accepted << " mutations loaded, " << t.rejected << " rejected");
  CHECK(t.rejected > sampled_count(100));
}

TEST_CASE("Mutated presets: simulate on mutated topologies exits 0 with finite numbers or 2 with one line",
          "[mutation]")
{
  // Up to 8 GPUs, as many as the preset holds (v100x1-native has one).
  const RestArgs rest = [](const nlohmann::json& topo) {
    const int gpus = std::min(8, topo.at("gpus_per_node").get<int>() * topo.at("max_nodes").get<int>());
    return std::vector<std::string>{"--workload",   "bert-large", "--algorithm",    "onebit-adam",
                                    "--gpus",       std::to_string(gpus), "--micro-batch", "16",
                                    "--global-batch", std::to_string(16 * gpus)};
  };
  mutate_on_command_line("topologies", "--topology", rest, 250);
}

TEST_CASE("Mutated presets: simulate on mutated workloads exits 0 with finite numbers or 2 with one line",
          "[mutation]")
{
  const RestArgs rest = [](const nlohmann::json&) {
    // --allow-oom: the 13B-18B models do not fit 8 GPUs at tp = pp = 1, and this test is about input, not memory.
    return std::vector<std::string>{"--topology", "a100x8-ib100", "--algorithm", "onebit-lamb", "--gpus",   "8",
                                    "--micro-batch", "2",        "--global-batch", "16",        "--tp", "1", "--pp", "1",
                                    "--allow-oom"};
  };
  mutate_on_command_line("workloads", "--workload", rest, 250);
}

TEST_CASE("Mutated flags: every numeric or choice flag given a bad value exits 2 with one line", "[mutation]")
{
  // calibrate's valid input: a W1 measurement as ccsim collective prints it.
  const auto measured = ccsim::test::run_ccsim("collective --topology w1-ring100g --gpus 8 -b 1K -e 1M -f 32 --quiet");
  REQUIRE(measured.exit_code == 0);
  const std::string nccl_file  = ccsim::test::write_temp_file("flags-nccl.txt", measured.out);
  const std::string calibrated = (ccsim::test::temp_dir() / "flags-calibrated.json").string();
  const std::string steps_file = ccsim::test::write_temp_file("flags-steps.json", R"({"name": "s",
    "base": {"topology": "w1-ring100g", "workload": "bert-large", "algorithm": "adam", "global_batch": 64,
    "micro_batch": 16}, "rows": [{"gpus": 2, "paper": {"allreduce_ms": 100}}]})");
  // Each command with valid inputs that finish fast, and the flags whose values are mutated.
  struct Command {
    std::vector<std::string> base;
    std::vector<std::string> flags;
  };
  const std::vector<Command> commands = {
      {{"simulate", "--topology", "v100x8-ib100", "--workload", "bert-large", "--algorithm", "onebit-adam", "--gpus",
        "16", "--micro-batch", "16", "--global-batch", "256", "--quiet"},
       {"--gpus", "--global-batch", "--micro-batch", "--tp", "--pp", "--bandwidth-gbps", "--latency-us", "--fidelity",
        "--network-model", "--time-limit", "--format", "--algorithm", "--topology", "--workload", "--overlap",
        "--bucket-mb", "--param-prefetch"}},
      {{"collective", "--topology", "w1-ring100g", "--gpus", "8", "-b", "1M", "-e", "1M", "--quiet"},
       {"--gpus", "-b", "-e", "-f", "--op", "--bandwidth-gbps", "--latency-us"}},
      {{"train", "--algorithm", "adam", "--steps", "2", "--workers", "2", "--global-batch", "8", "--quiet"},
       {"--steps", "--workers", "--global-batch", "--seed", "--model", "--backend", "--time-limit", "--task",
        "--pretrain-steps", "--cache-dir", "--stop-after"}},
      {{"advise", "--topology", "v100x8-ib100", "--workload", "bert-large", "--gpus", "16", "--quiet"},
       {"--jobs", "--epoch-samples", "--gpus", "--bandwidth-gbps"}},
      {{"advise", "--topology", "v100x8-ib100", "--workload", "bert-large", "--gpus", "16", "--quiet", "--search"},
       {"--gpus", "--global-batch", "--micro-batch", "--search"}},
      {{"bench-kernels", "--bytes", "4096", "--repeats", "1"}, {"--bytes", "--repeats", "--backend"}},
      {{"calibrate", "--topology", "w1-ring100g", "--nccl-tests", nccl_file, "--out", calibrated},
       {"--ranks", "--op", "--fidelity", "--format", "--nccl-tests", "--topology"}},
      {{"calibrate", "--topology", "w1-ring100g", "--nccl-tests", nccl_file, "--no-fit"},
       {"--nccl-tests", "--fidelity", "--topology", "--out"}},
      {{"calibrate", "--topology", "w1-ring100g", "--steps", steps_file, "--fit", "/nic/bandwidth_gbps", "--out",
        calibrated},
       {"--steps", "--fit", "--jobs", "--format"}},
      {{"validate", "--topology", "h800x8-ib400x8", "--no-rows", "--quiet"}, {"--jobs", "--fits", "--topology", "--format"}},
  };
  // Not one of these is a valid value for any flag above.
  // Issue 43 added a terminal escape (finding 2: echoed escaped, one line) and 300 different list items (finding 6:
  // over io::limits::kMaxListItems for a list of names, not a number for the rest).
  std::string many_items;
  for (int i = 0; i < 300; ++i)
    many_items += (i ? ",a" : "a") + std::to_string(i);
  const std::vector<std::string> bad = {"-1",   "nan",   "inf", "-inf", "1e999", "18446744073709551616",
                                        "",     "abc",   "1x",  "0x10", "\xff\xfe",
                                        std::string(100000, '9'), "1e400", "--", "\x1b]0;t\x07\x1b[2J", many_items};
  for (const auto& c : commands) { // each base command runs, so a rejection is the bad value's doing
    const auto base = run_limited(c.base);
    INFO(c.base.front() << ": " << base.err.substr(0, 600));
    REQUIRE(base.exit_code == 0);
  }
  int runs = 0;
  ccsim::test::MutationSample sample;
  for (const auto& c : commands)
    for (const auto& flag : c.flags)
      for (const auto& value : bad) {
        if (!sample.runs_next()) // 13 (the sanitizer suite) is prime to the 16 bad values: it walks across them
          continue;
        auto args = c.base;
        args.push_back(flag);
        args.push_back(value);
        const auto r = run_limited(args);
        INFO(args.front() << " " << flag << " '" << value.substr(0, 40) << "'\nstderr: " << r.err.substr(0, 600));
        CHECK(r.exit_code == 2);
        CHECK(ccsim::test::line_count(r.err) == 1);
        CHECK(r.err.rfind("ccsim: ", 0) == 0);
        ++runs;
      }
  WARN(runs << " bad flag values, each one line and exit 2");
}

// --- Issue 43 (hardening round 4): each case names the finding it holds.

namespace {
/// `preset` of `kind` as JSON, with `edit` applied, written to a temp file; returns its path.
std::string edited_preset(const std::string& kind, const std::string& preset, const std::string& file,
                          const std::function<void(nlohmann::json&)>& edit)
{
  auto doc = read_preset(fs::path(ccsim::io::data_dir()) / kind / (preset + ".json"));
  edit(doc);
  return ccsim::test::write_temp_file(file, doc.dump());
}

/// The step time simulate reports (--format json) for `args`, after checking it exited 0.
double step_time(const std::vector<std::string>& args)
{
  auto full = args;
  full.insert(full.end(), {"--format", "json", "--quiet"});
  const auto r = run_limited(full);
  INFO(args[0] << " ... " << r.err.substr(0, 600));
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out).at("step_time_s").get<double>();
}
} // namespace

TEST_CASE("Finding 1 of issue 43: a link latency below 1 ns simulates as 0 on the NCCL presets - never a SimGrid abort",
          "[mutation]")
{
  // "--latency-us 1e-10" aborted in SimGrid (Model.cpp:99) on these presets: the latency was under the floating-point
  // step of the simulated clock. Under io::limits::kMinLinkLatencyUs (1 ns) a latency counts as 0, so the step time is
  // exactly that of latency 0 (these presets' own value); 1 ns itself and 1 us simulate.
  for (const std::string topology : {"p5-h100x8-efa100x32", "h100x8-ib400x8", "b200x8-ib400x8"}) {
    INFO(topology);
    const std::vector<std::string> base = {"simulate", "--topology", topology, "--workload", "bert-large",
                                           "--algorithm", "adam", "--gpus", "64"};
    auto with = [&](const std::string& us) {
      auto a = base;
      a.insert(a.end(), {"--latency-us", us});
      return step_time(a);
    };
    const double at_zero = with("0");
    for (const std::string us : {"1e-10", "1e-12", "1e-308", "4.9e-324", "0.000999"})
      CHECK(with(us) == at_zero);
    // 1 ns is simulated as given: it moves the step by nanoseconds at most (the NCCL model takes the links' latency
    // back out of its own, so the step may move either way by a rounding).
    CHECK(with("0.001") == Approx(at_zero).epsilon(1e-6));
    CHECK(std::isfinite(with("1")));
  }
  // The same values in a topology file: nic, intra_node and fabric latency.
  for (const char* pointer : {"/nic/latency_us", "/intra_node/latency_us", "/fabric/latency_us"}) {
    INFO(pointer);
    const auto file = edited_preset("topologies", "p5-h100x8-efa100x32", "tiny-latency.json", [&](nlohmann::json& t) {
      t[nlohmann::json::json_pointer(pointer)] = 1e-300;
    });
    const double tiny = step_time({"simulate", "--topology", file, "--workload", "bert-large", "--algorithm", "adam",
                                   "--gpus", "64"});
    const double zero = step_time({"simulate", "--topology", "p5-h100x8-efa100x32", "--workload", "bert-large",
                                   "--algorithm", "adam", "--gpus", "64", "--latency-us", "0"});
    if (std::string(pointer) == "/nic/latency_us")
      CHECK(tiny == zero);
    CHECK(std::isfinite(tiny));
  }
}

TEST_CASE("Finding 2 of issue 43: names with ESC, BEL and C1 controls are printed escaped - tables, CSV, advise",
          "[mutation]")
{
  // A name that would retitle the terminal window and clear the screen, and a one-byte CSI (U+009B).
  const std::string evil = "\x1b]0;title\x07\x1b[2J\xc2\x9b" "31m";
  const auto topo = edited_preset("topologies", "v100x8-ib100", "evil-topology.json",
                                  [&](nlohmann::json& t) { t["name"] = evil; });
  const auto work = edited_preset("workloads", "bert-large", "evil-workload.json",
                                  [&](nlohmann::json& w) { w["name"] = evil; });
  auto raw_control = [](const std::string& text) {
    for (std::size_t i = 0; i < text.size(); ++i) {
      const unsigned char c = static_cast<unsigned char>(text[i]);
      if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F ||
          (c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) <= 0x9F))
        return true;
    }
    return false;
  };
  const std::vector<std::vector<std::string>> commands = {
      {"simulate", "--topology", topo, "--workload", work, "--algorithm", "onebit-adam", "--gpus", "16"},
      {"simulate", "--topology", topo, "--workload", work, "--algorithm", "onebit-adam", "--gpus", "16", "--format",
       "csv"},
      {"advise", "--topology", topo, "--workload", work, "--gpus", "16"},
  };
  for (const auto& args : commands) {
    auto a = args;
    a.push_back("--quiet");
    const auto r = run_limited(a);
    INFO(a[0] << " " << a.back() << "\n" << r.err.substr(0, 600));
    REQUIRE(r.exit_code == 0);
    CHECK_FALSE(raw_control(r.out));
    CHECK_FALSE(raw_control(r.err));
    // Shown, not dropped: the escaped form of ESC is in the output (each byte as \xNN).
    CHECK(r.out.find("\\x1B]0;title\\x07\\x1B[2J\\xC2\\x9B31m") != std::string::npos);
  }
  // JSON output keeps the name itself (JSON escapes it as \u001b): a program reading it gets the name as given.
  const auto j = run_limited({"simulate", "--topology", topo, "--workload", work, "--algorithm", "onebit-adam", "--gpus",
                              "16", "--format", "json", "--quiet"});
  REQUIRE(j.exit_code == 0);
  CHECK_FALSE(raw_control(j.out));
  const auto doc = nlohmann::json::parse(j.out);
  CHECK(doc.at("config").at("topology") == evil);
  CHECK(doc.at("config").at("workload") == evil);
}

TEST_CASE("Finding 3 of issue 43: a figure axis that names a text field is one line at load - exit 2", "[mutation]")
{
  for (const std::string figure : {R"({"kind": "scaling", "x": "algorithm"})", R"({"kind": "scaling", "y": "label"})",
                                   R"({"kind": "speedup-vs-bandwidth", "x": "topology"})"}) {
    INFO(figure);
    const auto file = ccsim::test::write_temp_file("text-axis.json", R"({"name": "t", "base": {"topology":
      "v100x8-ib100", "workload": "bert-large", "gpus": 16}, "axes": {"algorithm": ["adam", "onebit-adam"]},
      "figure": )" + figure + "}");
    const auto r = run_limited({"experiment", file, "--quiet", "--out", (ccsim::test::temp_dir() / "t").string()});
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(ccsim::test::line_count(r.err) == 1);
    CHECK(r.err.find(file + ": /figure/") != std::string::npos);
    CHECK(r.err.find("is not a number") != std::string::npos);
  }
}

TEST_CASE("Finding 3 of issue 43: a plot script that fails is reported with its last line and exit 5", "[mutation]")
{
  // A data folder whose plots/plot_experiment.py raises: ccsim must not blame a missing matplotlib, must say what the
  // script said, and must exit with the figure code (5, api/process/ExitCodes.hpp), after writing the results.
  const fs::path data = ccsim::test::temp_dir() / "data-failing-plot";
  fs::remove_all(data);
  fs::create_directories(data / "plots");
  for (const char* kind : {"topologies", "workloads", "experiments", "scripts"})
    fs::create_directory_symlink(fs::path(ccsim::io::data_dir()) / kind, data / kind);
  ccsim::test::write_temp_file("data-failing-plot/plots/plot_experiment.py",
                               "import sys\nprint('drawing', file=sys.stderr)\nraise ValueError('boom: bad axis')\n");
  const auto file = ccsim::test::write_temp_file("plot-fails.json", R"({"name": "p", "base": {"topology":
    "v100x8-ib100", "workload": "bert-large", "gpus": 16}, "axes": {"algorithm": ["adam", "onebit-adam"]},
    "figure": {"kind": "scaling", "x": "gpus"}})");
  const auto out = (ccsim::test::temp_dir() / "plot-fails-out").string();
  ::setenv("CCSIM_DATA_DIR", data.c_str(), 1);
  const auto failed = ccsim::test::run_ccsim("experiment " + file + " --quiet --out " + out);
  ::unsetenv("CCSIM_DATA_DIR");
  INFO(failed.err);
  CHECK(failed.exit_code == 5);
  CHECK(failed.err.find("the figure was not drawn: plots/plot_experiment.py failed: ValueError: boom: bad axis") !=
        std::string::npos);
  CHECK(failed.err.find("matplotlib") == std::string::npos);
  CHECK(fs::exists(fs::path(out) / "results.json"));
}

TEST_CASE("Finding 5 of issue 43: a log that ends in a torn line gets a newline before the first appended line",
          "[mutation]")
{
  // A kill (or a full disk) tore the last line; the next run's first line must start a line of its own, or both are
  // unreadable and that point is lost again.
  const auto path = ccsim::test::temp_dir() / "torn-log.jsonl";
  write_bytes(path.string(), "{\"point\": 0, \"config_hash\": \"0123456789abcdef\"}\n{\"point\": 1, \"conf");
  const nlohmann::json line = {{"point", 2}, {"config_hash", "fedcba9876543210"}};
  {
    ccsim::api::ResultLog log(path);
    log.append(line);
  }
  const auto lines = ccsim::test::lines_of_text(ccsim::test::read_file(path));
  REQUIRE(lines.size() == 3);
  CHECK(lines[1] == "{\"point\": 1, \"conf");
  CHECK(nlohmann::json::parse(lines[2]) == line);
  // A log that ends whole gets no blank line.
  {
    ccsim::api::ResultLog log(path);
    log.append(line);
  }
  CHECK(ccsim::test::lines_of_text(ccsim::test::read_file(path)).size() == 4);
}

TEST_CASE("Issue 43: README's exit-code table holds the codes of api/process/ExitCodes.hpp", "[mutation]")
{
  const std::string readme = ccsim::test::read_file(fs::path(ccsim::io::data_dir()) / "README.md");
  for (const auto& [code, words] : std::vector<std::pair<int, std::string>>{
           {0, "success"},
           {ccsim::api::kExitFailed, "failed experiment points"},
           {ccsim::api::kExitBadInput, "bad input"},
           {ccsim::api::kExitTimeLimit, "--time-limit"},
           {ccsim::api::kExitOutputFailed, "an output could not be written"},
           {ccsim::api::kExitFigureFailed, "figure failed to draw"},
           {130, "SIGINT"},
           {143, "SIGTERM"}}) {
    INFO(code << " " << words);
    const auto row = readme.find("\n| " + std::to_string(code) + " | ");
    REQUIRE(row != std::string::npos);
    CHECK(readme.substr(row, readme.find('\n', row + 1) - row).find(words) != std::string::npos);
  }
}

namespace {
/// Sixteen exact-fidelity points run one at a time (about 0.4 s each on 2 loaded cores): long enough to act on the
/// folder after the first result is logged and before the last.
std::string slow_experiment()
{
  return ccsim::test::write_temp_file("slow16.json", R"({"name": "slow16", "base": {"topology": "v100x8-ib100",
    "workload": "bert-large", "gpus": 128, "fidelity": "exact"}, "axes": {"algorithm": ["adam", "onebit-adam"],
    "bandwidth_gbps": [5, 10, 20, 25, 40, 50, 100, 200]}})");
}
} // namespace

TEST_CASE("Finding 4 of issue 43: the --out folder removed during a run is made again with every result", "[mutation]")
{
  // Every point's result is in memory when the run ends: a folder removed half-way must not lose one of them.
  const auto spec = slow_experiment();
  const auto dir  = (ccsim::test::temp_dir() / "removed-out").string();
  fs::remove_all(dir);
  const auto out = (ccsim::test::temp_dir() / "removed-out.txt").string();
  const auto err = (ccsim::test::temp_dir() / "removed-err.txt").string();
  const pid_t pid = ccsim::test::start_ccsim({"experiment", spec, "--no-plot", "--quiet", "--jobs", "1", "--out", dir},
                                             out, err);
  REQUIRE(ccsim::test::wait_until([&] { return ccsim::test::file_lines(dir + "/results.jsonl") >= 1; }, 120));
  fs::remove_all(dir);
  const int code = ccsim::test::wait_exit(pid);
  const std::string stderr_text = ccsim::test::read_file(err);
  INFO(stderr_text);
  REQUIRE(code == 0);
  CHECK(stderr_text.find("was removed during the run: made again") != std::string::npos);
  const auto doc = nlohmann::json::parse(ccsim::test::read_file(dir + "/results.json"));
  CHECK(doc.at("rows").size() == 16);
  CHECK(ccsim::test::file_lines(dir + "/results.jsonl") == 16);
  CHECK(ccsim::test::file_lines(dir + "/results.csv") == 17);
}

TEST_CASE("Finding 4 of issue 43: a full disk is exit 4 in one line, the lines before it kept for --resume",
          "[mutation]")
{
  // RLIMIT_FSIZE stands in for a full disk (the same failed write(): EFBIG instead of ENOSPC), SIGXFSZ ignored as a
  // shell's `trap '' XFSZ` does. 12 KiB holds about three 3.7 KB lines and tears the fourth.
  const auto spec = slow_experiment();
  const auto dir  = (ccsim::test::temp_dir() / "full-disk").string();
  fs::remove_all(dir);
  const auto r = ccsim::test::run_ccsim("--version >/dev/null && (ulimit -f 12; trap '' XFSZ; exec " +
                                        std::string(CCSIM_BINARY) + " experiment " + spec +
                                        " --no-plot --quiet --jobs 1 --out " + dir + ")");
  INFO(r.err);
  CHECK(r.exit_code == ccsim::api::kExitOutputFailed);
  CHECK(ccsim::test::line_count(r.err) == 1);
  CHECK(r.err.find("results.jsonl") != std::string::npos);
  CHECK(r.err.find("--resume reuses them") != std::string::npos);
  const auto lines = ccsim::test::lines_of_text(ccsim::test::read_file(dir + "/results.jsonl"));
  REQUIRE(lines.size() >= 2);
  int whole = 0;
  for (const auto& l : lines)
    whole += nlohmann::json::parse(l, nullptr, false).is_object();
  CHECK(whole >= 1);
  CHECK(whole >= static_cast<int>(lines.size()) - 1); // at most the last line is torn
  // With room again, --resume reuses every whole line and runs the rest.
  const auto resumed = ccsim::test::run_ccsim("experiment " + spec + " --no-plot --quiet --resume --out " + dir);
  INFO(resumed.err);
  CHECK(resumed.exit_code == 0);
  CHECK(resumed.err.find(fmt::format("resuming: {} of 16 points found", whole)) != std::string::npos);
  CHECK(ccsim::test::file_lines(dir + "/results.jsonl") == 16);
}

TEST_CASE("Finding 7 of issue 43: memory exhaustion is said as such, with the size asked for", "[mutation]")
{
  // Under a 1 GiB address-space limit, 1 GiB of input (about 3 GiB with the kernels' buffers) cannot be allocated.
  const auto r = ccsim::test::run_ccsim("--version >/dev/null && (ulimit -v 1048576; exec " + std::string(CCSIM_BINARY) +
                                        " bench-kernels --bytes 1073741824 --repeats 1)");
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(ccsim::test::line_count(r.err) == 1);
  CHECK(r.err.find("internal error") == std::string::npos);
  CHECK(r.err.find("out of memory: --bytes 1073741824 needs about 3 GiB") != std::string::npos);
}

TEST_CASE("Finding 7 of issue 43: before anything is counted, the progress line says the run is preparing",
          "[mutation]")
{
  // A 16,384-GPU exact run builds its platform and plans its messages for most of a minute before it counts one: the
  // simulation child reports nothing then, and the parent passes 0 of 0 every 0.25 s (api/process/Isolation.cpp).
  const ccsim::cli::Progress p("ccsim simulate", true);
  const std::string line = p.line("adam exact, 16384 GPUs", 0, 0, "messages", 0, "");
  CHECK(line.rfind("ccsim simulate: adam exact, 16384 GPUs: preparing (building the platform, planning the work), ",
                   0) == 0);
  CHECK(line.find("ETA") == std::string::npos);
  // Names in the line are escaped too (finding 2): it goes to stderr around std::cerr's filter.
  CHECK(p.line("\x1b[2Jx", 1, 2, "points", 0, "\x07").find("\\x1B[2Jx: 1/2 points (50.0 %), \\x07, ") !=
        std::string::npos);
}

TEST_CASE("Finding 6 of issue 43: a list option's repeats count once, and it holds at most 256 different items",
          "[mutation]")
{
  // ["adam"] * 10**6 ran a million identical trainings. Both front ends read lists here (api/options/OptionText.cpp),
  // so the command line and Python drop repeats alike (advise --tp 2,2 was "a value is given twice"; it is --tp 2 now).
  namespace api = ccsim::api;
  const auto tp = api::list_option("tp", ccsim::io::range::kParallelDegree, 1024, "");
  CHECK(api::read_integer_list("2,4,2,2,8,4", tp) == std::vector<std::int64_t>{2, 4, 8});
  const auto names = api::list_option("algorithm", std::nullopt, 0, "");
  std::string million;
  for (int i = 0; i < 1000000; ++i)
    million += i ? ",adam" : "adam";
  CHECK(api::read_name_list(million, names) == std::vector<std::string>{"adam"});
  CHECK(api::read_name_list("lamb,adam,lamb", names) == std::vector<std::string>{"lamb", "adam"});
  std::string many;
  for (std::size_t i = 0; i <= ccsim::io::limits::kMaxListItems; ++i)
    many += (i ? ",a" : "a") + std::to_string(i);
  CHECK_THROWS_WITH(api::read_name_list(many, names), "--algorithm: lists more than 256 different values");
  CHECK(api::read_repeated({"x.txt", "y.txt", "x.txt"}, names) == std::vector<std::string>{"x.txt", "y.txt"});
  // train reads its own --algorithm list (empty items skipped): the same repeats and cap.
  const auto once = run_limited({"train", "--algorithm", "adam,adam,,adam", "--steps", "2", "--workers", "2",
                                 "--global-batch", "8", "--format", "json", "--quiet"});
  INFO(once.err);
  REQUIRE(once.exit_code == 0);
  CHECK_FALSE(nlohmann::json::parse(once.out).contains("runs")); // one run prints its own document (cmd_train.cpp)
  const auto capped = run_limited({"train", "--algorithm", many, "--steps", "2", "--quiet"});
  CHECK(capped.exit_code == 2);
  CHECK(capped.err == "ccsim: --algorithm: lists more than 256 different values\n");
}
