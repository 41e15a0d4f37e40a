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
#include "sim/platform/Topology.hpp"
#include "sim/model/Workload.hpp"
#include "io/JsonInput.hpp"
#include "tests/support/Mutations.hpp"
#include "tests/support/Processes.hpp"

#include <algorithm>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <csignal>
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

struct Tally {
  int accepted = 0, rejected = 0;
};

/// Loads every mutation of every preset of `kind` with `load`; each must load or throw a one-line InputError that
/// names the file.
Tally mutate_in_process(const std::string& kind, const std::function<void(const std::string&)>& load)
{
  Tally t;
  // "workloads/evidence" -> mutated-workloads-evidence.json: a '/' would name a folder that does not exist, and every
  // mutation would be "rejected" for a missing file.
  std::string flat = kind;
  std::replace(flat.begin(), flat.end(), '/', '-');
  const std::string path = (ccsim::test::temp_dir() / ("mutated-" + flat + ".json")).string();
  for (const auto& preset : presets(kind)) {
    for (const auto& m : mutations_of(read_preset(preset))) {
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
  const std::size_t stride = std::max<std::size_t>(1, all.size() / count) | 1;
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
  CHECK(t.rejected > 1000); // the mutations are mostly wrong on purpose; a loader accepting them all is broken
}

TEST_CASE("Mutated presets: every workload mutation loads in range or is one line naming the file", "[mutation]")
{
  const auto t = mutate_in_process("workloads", [](const std::string& p) { (void)ccsim::sim::load_workload(p); });
  WARN("workloads: " << t.accepted << " mutations loaded, " << t.rejected << " rejected");
  CHECK(t.rejected > 1000);
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
  CHECK(t.rejected > 1000);
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
  for (auto m : mutations_of(original)) {
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
  CHECK(rejected > 500);
}

TEST_CASE("Mutated presets: every mutation of the convergence evidence loads or is one line naming the file",
          "[mutation]")
{
  const auto t = mutate_in_process("workloads/evidence",
                                   [](const std::string& p) { (void)ccsim::api::load_convergence_evidence(p); });
  WARN("convergence evidence: " << t.accepted << " mutations loaded, " << t.rejected << " rejected");
  CHECK(t.rejected > 1000);
}

TEST_CASE("Mutated presets: every mutation of the calibration fits loads or is one line naming the file",
          "[mutation]")
{
  const auto t = mutate_in_process("experiments/calibration",
                                   [](const std::string& p) { (void)ccsim::api::load_calibration_fits(p); });
  WARN("calibration fits: " << t.accepted << " mutations loaded, " << t.rejected << " rejected");
  CHECK(t.rejected > 100);
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
      {{"calibrate", "--topology", "w1-ring100g", "--steps", steps_file, "--fit", "/nic/bandwidth_gbps", "--out",
        calibrated},
       {"--steps", "--fit", "--jobs", "--format"}},
      {{"validate", "--topology", "h800x8-ib400x8", "--no-rows", "--quiet"}, {"--jobs", "--fits", "--topology", "--format"}},
  };
  // Not one of these is a valid value for any flag above.
  const std::vector<std::string> bad = {"-1",   "nan",   "inf", "-inf", "1e999", "18446744073709551616",
                                        "",     "abc",   "1x",  "0x10", "\xff\xfe",
                                        std::string(100000, '9'), "1e400", "--"};
  for (const auto& c : commands) { // each base command runs, so a rejection is the bad value's doing
    const auto base = run_limited(c.base);
    INFO(c.base.front() << ": " << base.err.substr(0, 600));
    REQUIRE(base.exit_code == 0);
  }
  int runs = 0;
  for (const auto& c : commands)
    for (const auto& flag : c.flags)
      for (const auto& value : bad) {
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
