// Long runs a user can watch, bound, stop and resume (issue 18): signals end every child, --time-limit stops within a
// second of the limit with exit 3, an interrupted experiment resumes to the very results of an uninterrupted one, and
// progress goes to stderr only. Timing assertions are one-sided and generous (the machine may be a loaded 2-core
// one); every wait is for an event (a child appears, a results line is written), never a guessed sleep.
#include "tests/support/Processes.hpp"
#include "tests/support/RunCcsim.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <csignal>
#include <filesystem>

using namespace ccsim::test;
namespace fs = std::filesystem;

namespace {
// Minutes of wall time in exact fidelity (one all-to-all round of 512 x 511 messages): a run that is still going
// whenever a test signals it or its time limit falls.
/// These tests need simulations that run for seconds: every message of an exact 1-bit LAMB step at 512 GPUs, and six
/// exact 128-GPU points. Symmetric rounds (sim/collective/SymmetricRound.hpp) would time those all-to-alls in milliseconds, so
/// each test that runs them simulates every flow (CCSIM_SYMMETRY=off, inherited by the ccsim it starts).
struct EveryFlow {
  EveryFlow() { setenv("CCSIM_SYMMETRY", "off", 1); }
  ~EveryFlow() { unsetenv("CCSIM_SYMMETRY"); }
  EveryFlow(const EveryFlow&)            = delete;
  EveryFlow& operator=(const EveryFlow&) = delete;
};

const std::vector<std::string> LONG_SIMULATION = {"simulate",    "--topology", "a100x8-ib100", "--workload", "bert-xl",
                                                  "--algorithm", "onebit-lamb", "--gpus",      "512",        "--fidelity",
                                                  "exact"};

std::vector<std::string> with(std::vector<std::string> args, std::initializer_list<std::string> more)
{
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

std::string temp(const std::string& name)
{
  return (temp_dir() / name).string();
}

/// Six points of ~0.4-0.8 s each (exact all-to-all on 128 GPUs), all different configurations.
std::string six_point_experiment()
{
  return write_temp_file("six.json", R"({"name": "six", "base": {"topology": "a100x8-ib100", "workload": "bert-xl",
    "gpus": 128, "fidelity": "exact"}, "axes": {"algorithm": ["onebit-adam", "onebit-lamb"],
    "bandwidth_gbps": [50, 100, 200]}})");
}

double seconds_since(std::chrono::steady_clock::time_point t0)
{
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
} // namespace

TEST_CASE("SIGTERM to ccsim simulate ends its simulation child within a second and exits 143", "[cli][longrun]")
{
  const EveryFlow every_flow;
  const pid_t ccsim = start_ccsim(LONG_SIMULATION, temp("term.out"), temp("term.err"));
  std::vector<pid_t> children;
  REQUIRE(wait_until([&] { return !(children = children_of(ccsim)).empty(); }, 60));
  kill(ccsim, SIGTERM);
  CHECK(wait_until([&] { return process_gone(children[0]); }, 1.0));
  CHECK(wait_exit(ccsim) == 143);
  const auto err = read_file(temp("term.err"));
  INFO(err);
  CHECK(err.find("ccsim simulate: stopped by SIGTERM after ") != std::string::npos);
  CHECK(read_file(temp("term.out")).empty());
}

TEST_CASE("SIGKILL to ccsim: the simulation child dies with it (PR_SET_PDEATHSIG)", "[cli][longrun]")
{
  const EveryFlow every_flow;
  // No handler runs on SIGKILL: only the child's parent-death signal can end it.
  const pid_t ccsim = start_ccsim(LONG_SIMULATION, temp("kill.out"), temp("kill.err"));
  std::vector<pid_t> children;
  REQUIRE(wait_until([&] { return !(children = children_of(ccsim)).empty(); }, 60));
  kill(ccsim, SIGKILL);
  CHECK(wait_exit(ccsim) == 128 + SIGKILL);
  CHECK(wait_until([&] { return process_gone(children[0]); }, 1.0));
}

TEST_CASE("SIGINT to ccsim experiment --jobs 2 ends every simulation of its pool and exits 130", "[cli][longrun]")
{
  const EveryFlow every_flow;
  const auto file   = six_point_experiment();
  const pid_t ccsim = start_ccsim({"experiment", file, "--no-plot", "--jobs", "2", "--out", temp("int.dir")},
                                  temp("int.out"), temp("int.err"));
  std::vector<pid_t> children;
  REQUIRE(wait_until([&] { return (children = children_of(ccsim)).size() == 2; }, 60));
  kill(ccsim, SIGINT);
  for (const pid_t child : children)
    CHECK(wait_until([&] { return process_gone(child); }, 1.0));
  CHECK(wait_exit(ccsim) == 130);
  INFO(read_file(temp("int.err")));
  CHECK(read_file(temp("int.err")).find("ccsim experiment: stopped by SIGINT") != std::string::npos);
}

TEST_CASE("ccsim simulate --time-limit stops a long exact simulation within 1 s of the limit with exit 3", "[cli][longrun]")
{
  const EveryFlow every_flow;
  const auto t0     = std::chrono::steady_clock::now();
  const pid_t ccsim = start_ccsim(with(LONG_SIMULATION, {"--time-limit", "2", "--format", "json"}), temp("limit.out"),
                                  temp("limit.err"));
  const int rc         = wait_exit(ccsim);
  const double elapsed = seconds_since(t0);
  const auto err       = read_file(temp("limit.err"));
  INFO(err);
  CHECK(rc == 3);
  CHECK(elapsed >= 2.0);
  CHECK(elapsed < 3.0);
  CHECK(read_file(temp("limit.out")).empty()); // a simulation keeps nothing partial; stdout stays clean
  CHECK(err.find("ccsim simulate: --time-limit 2 s reached after 2.") != std::string::npos);
  CHECK(err.find("messages simulated, no result") != std::string::npos);
}

TEST_CASE("ccsim simulate shows its progress on stderr and --quiet silences it", "[cli][longrun]")
{
  const EveryFlow every_flow;
  // Event-driven: wait for the first progress line (non-terminal stderr: plain lines, the first after 2 s).
  const pid_t ccsim = start_ccsim(with(LONG_SIMULATION, {"--format", "json"}), temp("prog.out"), temp("prog.err"));
  REQUIRE(wait_until([&] { return read_file(temp("prog.err")).find("ETA") != std::string::npos; }, 60));
  kill(ccsim, SIGTERM);
  CHECK(wait_exit(ccsim) == 143);
  const auto err = read_file(temp("prog.err"));
  INFO(err);
  // "ccsim simulate: onebit-lamb exact, 512 GPUs: D/T messages (P %), R messages/s, E s, ETA ..." (T is
  // sim::planned_messages, held to the engine's own count in tests/sim/MessageCount_test.cpp).
  CHECK(err.find("ccsim simulate: onebit-lamb exact, 512 GPUs: ") == 0);
  CHECK(err.find(" messages (") != std::string::npos);
  CHECK(err.find(" messages/s, ") != std::string::npos);
  CHECK(read_file(temp("prog.out")).empty());

  const auto quiet = run_ccsim("simulate --topology a100x8-ib100 --workload bert-xl --algorithm onebit-lamb --gpus 512 "
                               "--fidelity exact --quiet --time-limit 3");
  CHECK(quiet.exit_code == 3);
  CHECK(line_count(quiet.err) == 1); // only the time-limit line
}

TEST_CASE("an experiment interrupted after k points and resumed serially or under mpirun gives the results of an uninterrupted run", "[cli][longrun]")
{
  const EveryFlow every_flow;
  const auto file = six_point_experiment();
  const auto full = run_ccsim("experiment " + file + " --no-plot --out " + temp("full.dir"));
  REQUIRE(full.exit_code == 0);

  // Interrupt once two points are in the results log (written the moment each finishes).
  const std::string part = temp("part.dir");
  const pid_t ccsim      = start_ccsim({"experiment", file, "--no-plot", "--out", part}, temp("part.out"), temp("part.err"));
  REQUIRE(wait_until([&] { return file_lines(part + "/results.jsonl") >= 2; }, 120));
  kill(ccsim, SIGTERM);
  REQUIRE(wait_exit(ccsim) == 143);
  const int k = file_lines(part + "/results.jsonl");
  REQUIRE(k >= 2);
  REQUIRE(k < 6);
  // The stopped run also wrote its finished points as results.json, marked incomplete.
  const auto partial = nlohmann::json::parse(read_file(part + "/results.json"));
  CHECK(partial["complete"] == false);
  CHECK(partial["points_done"] == k);
  CHECK(partial["rows"].size() == static_cast<std::size_t>(k));
  INFO(read_file(temp("part.err")));
  CHECK(read_file(temp("part.err")).find(std::to_string(k) + " of 6 points done") != std::string::npos);

  // Resume twice from copies of the stopped run: serially, and under mpirun -n 2 (ranks write their own logs and
  // rank 0 merges them). Both skip the k finished points and end with the uninterrupted run's files, byte for byte.
  fs::copy(part, temp("part-mpi.dir"), fs::copy_options::recursive);
  const auto resumed = run_ccsim("experiment " + file + " --no-plot --resume --out " + part);
  REQUIRE(resumed.exit_code == 0);
  CHECK(resumed.err.find("resuming: " + std::to_string(k) + " of 6 points found") != std::string::npos);
  CHECK(file_lines(part + "/results.jsonl") == 6);
  CHECK(read_file(part + "/results.json") == read_file(temp("full.dir") + "/results.json"));
  CHECK(read_file(part + "/results.csv") == read_file(temp("full.dir") + "/results.csv"));

  if (std::system("command -v mpirun >/dev/null 2>&1") != 0) {
    WARN("mpirun not installed: the MPI resume is skipped");
    return;
  }
  const std::string mpi = temp("part-mpi.dir");
  const std::string cmd = "mpirun --allow-run-as-root --oversubscribe -n 2 " + std::string(CCSIM_BINARY) +
                          " experiment " + file + " --no-plot --resume --out " + mpi + " > /dev/null 2>&1";
  REQUIRE(std::system(cmd.c_str()) == 0);
  CHECK(file_lines(mpi + "/results.jsonl") == 6);
  CHECK(!fs::exists(mpi + "/results.rank0.jsonl"));
  CHECK(!fs::exists(mpi + "/results.rank1.jsonl"));
  CHECK(read_file(mpi + "/results.json") == read_file(temp("full.dir") + "/results.json"));
  CHECK(read_file(mpi + "/results.csv") == read_file(temp("full.dir") + "/results.csv"));
}

TEST_CASE("a rerun stopped by SIGTERM at any moment leaves the earlier complete results readable", "[cli][longrun]")
{
  // Issue 33: a rerun without --resume emptied results.* first, and a SIGTERM 0.3 s later left none of them. Now the
  // earlier results.json / results.csv stay byte for byte until a run completes, and the log keeps their lines.
  const EveryFlow every_flow;
  const auto file       = six_point_experiment();
  const std::string dir = temp("rerun.dir");
  REQUIRE(run_ccsim("experiment " + file + " --no-plot --quiet --out " + dir).exit_code == 0);
  const std::string json = read_file(dir + "/results.json"), csv = read_file(dir + "/results.csv");
  REQUIRE(nlohmann::json::parse(json)["complete"] == true);
  // Moments: at once (while it checks its points), once its first simulation child is up, once its first new line
  // is in the log.
  const std::vector<std::string> moments = {"at start", "with a child running", "after a new line"};
  for (const auto& moment : moments) {
    INFO(moment);
    const int before  = file_lines(dir + "/results.jsonl");
    const pid_t ccsim = start_ccsim({"experiment", file, "--no-plot", "--quiet", "--out", dir}, temp("rerun.out"),
                                    temp("rerun.err"));
    if (moment == "with a child running")
      REQUIRE(wait_until([&] { return !children_of(ccsim).empty(); }, 60));
    if (moment == "after a new line")
      REQUIRE(wait_until([&] { return file_lines(dir + "/results.jsonl") > before; }, 120));
    kill(ccsim, SIGTERM);
    const int rc = wait_exit(ccsim);
    INFO(read_file(temp("rerun.err")));
    CHECK(rc == 143);
    CHECK(read_file(dir + "/results.json") == json);
    CHECK(read_file(dir + "/results.csv") == csv);
    CHECK(file_lines(dir + "/results.jsonl") >= before); // appended to, never emptied
    if (moment != "at start") // at once, the signal may come before ccsim's handler: no line then
      CHECK(read_file(temp("rerun.err")).find("the earlier run's complete results.json and results.csv are kept") !=
            std::string::npos);
  }
  // What the stopped reruns left resumes to the same results, and the log is one line per point again.
  const auto resumed = run_ccsim("experiment " + file + " --no-plot --quiet --resume --out " + dir);
  INFO(resumed.err);
  REQUIRE(resumed.exit_code == 0);
  CHECK(resumed.err.find("resuming: 6 of 6 points found") != std::string::npos);
  CHECK(read_file(dir + "/results.json") == json);
  CHECK(file_lines(dir + "/results.jsonl") == 6);

  // --fresh removes them first: a stopped fresh run then leaves its own partial results.json.
  const auto fresh = run_ccsim("experiment " + file + " --no-plot --quiet --fresh --time-limit 1.5 --format json --out " +
                               dir);
  INFO(fresh.err);
  CHECK(fresh.exit_code == 3);
  const auto partial = nlohmann::json::parse(read_file(dir + "/results.json"));
  CHECK(partial["complete"] == false);
  CHECK(file_lines(dir + "/results.jsonl") == partial["points_done"].get<int>());
}

TEST_CASE("two runs into one --out: the second is refused with one line naming the first's pid", "[cli][longrun]")
{
  // Issue 33: two experiments at once both exited 0, with their results mixed in one folder.
  const EveryFlow every_flow;
  const auto file       = six_point_experiment();
  const std::string dir = temp("locked.dir");
  const pid_t first     = start_ccsim({"experiment", file, "--no-plot", "--quiet", "--out", dir}, temp("locked.out"),
                                      temp("locked.err"));
  REQUIRE(wait_until([&] { return !children_of(first).empty(); }, 60)); // it holds the lock by now
  const auto second = run_ccsim("experiment whatif-bandwidth --no-plot --quiet --out " + dir);
  CHECK(second.exit_code == 2);
  CHECK(line_count(second.err) == 1);
  CHECK(second.err == "ccsim: --out: '" + dir + "' is in use by another ccsim run (pid " + std::to_string(first) +
                          "): two runs must not write into one folder; wait for it to finish or choose another "
                          "folder\n");
  kill(first, SIGTERM);
  CHECK(wait_exit(first) == 143);
  // The lock dies with its holder: the folder is free again.
  CHECK(run_ccsim("experiment " + file + " --no-plot --quiet --resume --out " + dir).exit_code == 0);
}

TEST_CASE("experiment --time-limit keeps the finished points and prints them and exits 3", "[cli][longrun]")
{
  const EveryFlow every_flow;
  const auto file = six_point_experiment();
  const auto r    = run_ccsim("experiment " + file + " --no-plot --format json --time-limit 1.5 --out " + temp("tl.dir"));
  INFO(r.err);
  REQUIRE(r.exit_code == 3);
  const auto printed = nlohmann::json::parse(r.out); // stdout stays one JSON document
  const auto written = nlohmann::json::parse(read_file(temp("tl.dir") + "/results.json"));
  CHECK(printed == written);
  CHECK(written["complete"] == false);
  const int done = written["points_done"].get<int>();
  CHECK(done < 6);
  CHECK(file_lines(temp("tl.dir") + "/results.jsonl") == done);
  CHECK(r.err.find("ccsim experiment: --time-limit 1.5 s reached after ") != std::string::npos);
  CHECK(r.err.find(std::to_string(done) + " of 6 points done") != std::string::npos);
}

TEST_CASE("train --time-limit prints the steps that finished and exits 3", "[cli][longrun]")
{
  // The tiny transformer's 200 default steps take 15-25 s on 2 cores: a 2 s limit stops it part-way.
  const auto r = run_ccsim("train --algorithm adam --model tiny-transformer --time-limit 2 --format json");
  INFO(r.err);
  REQUIRE(r.exit_code == 3);
  const auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["complete"] == false);
  const int done = doc["steps_done"].get<int>();
  CHECK(done >= 1);
  CHECK(done < 200);
  CHECK(doc["loss_curve"].back()[0].get<int>() == done); // the curve closes at the step it stopped after
  CHECK(doc["final_loss"] == doc["loss_curve"].back()[1]);
  CHECK(r.err.find("ccsim train: --time-limit 2 s reached after ") != std::string::npos);
  CHECK(r.err.find("adam stopped at step " + std::to_string(done) + "/200") != std::string::npos);
}

TEST_CASE("a bad --time-limit is a one-line error naming the flag", "[cli]")
{
  for (const std::string cmd : {"simulate --topology a100x8-ib100 --workload bert-xl --algorithm adam --gpus 8",
                                "train --algorithm adam", "experiment onebit-lamb-table5 --no-plot"})
    for (const char* bad : {"0", "-1", "nan", "inf", "abc", "1e9"}) {
      const auto r = run_ccsim(cmd + " --time-limit " + bad);
      INFO(cmd << " --time-limit " << bad << ": " << r.err);
      CHECK(r.exit_code == 2);
      CHECK(line_count(r.err) == 1);
      CHECK(r.err.rfind("ccsim: --time-limit: ", 0) == 0);
    }
}
