// Results a user can trust over time (issue 33): every line of an experiment's results log carries the checksum of
// its own text, and `--resume` re-runs any line that fails a check — a tampered value, an implausible report, a
// swapped configuration hash, a duplicate key, two lines that disagree, a damaged rank log — so the resumed results
// are byte for byte those of a clean run, and stderr says how many points it re-ran and why. An experiment is checked
// whole before its first point runs, and a FIFO where ccsim writes or resumes is one line, never a hang.
#include "tests/support/Processes.hpp"
#include "tests/support/RunCcsim.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sys/stat.h>

using namespace ccsim::test;
namespace fs = std::filesystem;

namespace {
/// Four fast points: two algorithms at two bandwidths (the last axis fastest: adam@50, adam@100, onebit-adam@50, ...).
const char* const FOUR = R"({"name": "four", "base": {"topology": "a100x8-ib100", "workload": "bert-large",
  "gpus": 16}, "axes": {"algorithm": ["adam", "onebit-adam"], "bandwidth_gbps": [50, 100]}})";

/// FNV-1a 64 (offset 14695981039346656037, prime 1099511628211) as 16 hex digits, written here from its definition.
std::string fnv1a64_hex(const std::string& bytes)
{
  std::uint64_t h = 14695981039346656037ull;
  for (const char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return fmt::format("{:016x}", h);
}

/// A line with the checksum it would have had if ccsim had written it so: what a careful forger does.
nlohmann::json resealed(nlohmann::json line)
{
  line.erase("checksum");
  line["checksum"] = fnv1a64_hex(line.dump());
  return line;
}

std::vector<std::string> lines_of(const std::string& file)
{
  std::vector<std::string> out;
  std::ifstream in(file);
  for (std::string l; std::getline(in, l);)
    out.push_back(l);
  return out;
}

void write_lines(const std::string& file, const std::vector<std::string>& lines)
{
  std::ofstream out(file, std::ios::trunc);
  for (const auto& l : lines)
    out << l << "\n";
}

struct CleanRun {
  std::string dir, json, csv;
  std::vector<std::string> lines;
};

/// The four points run once, uninterrupted: what every resume below must reproduce.
const CleanRun& clean_run()
{
  static const CleanRun run = [] {
    CleanRun c;
    const auto file = write_temp_file("four.json", FOUR);
    c.dir           = (temp_dir() / "four-clean").string();
    const auto r    = run_ccsim("experiment " + file + " --no-plot --quiet --out " + c.dir);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    c.json  = read_file(c.dir + "/results.json");
    c.csv   = read_file(c.dir + "/results.csv");
    c.lines = lines_of(c.dir + "/results.jsonl");
    REQUIRE(c.lines.size() == 4);
    return c;
  }();
  return run;
}

using Lines = std::vector<std::string>;

/// One way of tampering with the log, the reason the resume must give, and how many points it must re-run.
struct Tampering {
  std::string name;
  std::function<void(std::vector<std::string>& lines, const std::string& dir)> apply;
  std::string reason;
  int rerun;
};

/// `line` with `edit` applied to its parsed JSON (the checksum left as it was, as a hand edit leaves it).
std::string edited(const std::string& line, const std::function<void(nlohmann::json&)>& edit)
{
  auto doc = nlohmann::json::parse(line);
  edit(doc);
  return doc.dump();
}
} // namespace

TEST_CASE("experiment results.jsonl: every line carries the FNV-1a 64 of its own text without the checksum", "[cli]")
{
  const auto& clean = clean_run();
  for (std::size_t i = 0; i < clean.lines.size(); ++i) {
    const auto line = nlohmann::json::parse(clean.lines[i]);
    INFO(clean.lines[i].substr(0, 200));
    CHECK(line["point"] == i); // a completed run's log is in point order
    CHECK(line["checksum"] == resealed(line)["checksum"]);
    CHECK(line["config_hash"] == fnv1a64_hex(line["config"].dump()));
  }
}

TEST_CASE("experiment --resume: every tampering of the log re-runs its points and ends with a clean run's results",
          "[cli][mutation]")
{
  const auto& clean = clean_run();
  const auto file   = write_temp_file("four.json", FOUR);
  const auto set    = [](const char* key, nlohmann::json v) {
    return [key, v](nlohmann::json& d) { d["result"][key] = v; };
  };
  const std::vector<Tampering> cases = {
      {"samples_per_s -1", [&](Lines& l, const std::string&) { l[0] = edited(l[0], set("samples_per_s", -1)); },
       "1 implausible: samples_per_s -1 is not positive", 1},
      {"samples_per_s 0", [&](Lines& l, const std::string&) { l[0] = edited(l[0], set("samples_per_s", 0)); },
       "1 implausible: samples_per_s 0 is not positive", 1},
      {"samples_per_s 1e30", [&](Lines& l, const std::string&) { l[1] = edited(l[1], set("samples_per_s", 1e30)); },
       "1 implausible: samples_per_s 1e+30 is not global_batch / step_time_s", 1},
      {"a doubled step time",
       [&](Lines& l, const std::string&) {
         l[2] = edited(l[2], [](nlohmann::json& d) { d["result"]["step_time_s"] = 2 * d["result"]["step_time_s"].get<double>(); });
       },
       "1 implausible: step_time_s ", 1},
      {"a negative phase step time",
       [&](Lines& l, const std::string&) { l[3] = edited(l[3], [](nlohmann::json& d) { d["result"]["phases"][0]["step_time_s"] = -1.0; }); },
       "1 implausible: phases/0.step_time_s -1 is not positive", 1},
      {"empty phases", [&](Lines& l, const std::string&) { l[0] = edited(l[0], set("phases", nlohmann::json::array())); },
       "1 implausible: phases: none", 1},
      {"a value consistent with the rest, checksum not updated",
       [&](Lines& l, const std::string&) {
         l[1] = edited(l[1], [](nlohmann::json& d) { d["result"]["tflops_per_gpu"] = 2 * d["result"]["tflops_per_gpu"].get<double>(); });
       },
       "1 checksum mismatch", 1},
      {"swapped config hashes",
       [&](Lines& l, const std::string&) {
         auto a = nlohmann::json::parse(l[0]), b = nlohmann::json::parse(l[1]);
         std::swap(a["config_hash"], b["config_hash"]);
         l[0] = a.dump(), l[1] = b.dump();
       },
       "2 config hash mismatch", 2},
      {"swapped config hashes with checksums recomputed",
       [&](Lines& l, const std::string&) {
         auto a = nlohmann::json::parse(l[0]), b = nlohmann::json::parse(l[1]);
         std::swap(a["config_hash"], b["config_hash"]);
         l[0] = resealed(a).dump(), l[1] = resealed(b).dump();
       },
       "2 config hash mismatch", 2},
      {"another point's result pasted with the checksum recomputed",
       [&](Lines& l, const std::string&) {
         auto a = nlohmann::json::parse(l[0]);
         a["result"] = nlohmann::json::parse(l[2])["result"];
         l[0]        = resealed(a).dump();
       },
       "1 result of another configuration: algorithm onebit-adam, not adam", 1},
      {"a key given twice",
       [&](Lines& l, const std::string&) {
         const auto at = l[3].rfind("\"samples_per_s\":"); // the last is the result's own (keys are sorted)
         l[3].insert(at, "\"samples_per_s\":1,");
       },
       "1 invalid line: /result/samples_per_s: appears twice in one object", 1},
      {"a conflicting duplicate line, checksum recomputed",
       [&](Lines& l, const std::string&) {
         auto a = nlohmann::json::parse(l[2]);
         a["result"]["tflops_per_gpu"] = 3 * a["result"]["tflops_per_gpu"].get<double>();
         l.push_back(resealed(a).dump());
       },
       "1 conflicting duplicate lines", 1},
      {"no checksum (a line of an older ccsim)",
       [&](Lines& l, const std::string&) { l[0] = edited(l[0], [](nlohmann::json& d) { d.erase("checksum"); }); }, "1 no checksum", 1},
      {"a tampered line in results.rank0.jsonl",
       [&](Lines& l, const std::string& dir) {
         write_lines(dir + "/results.rank0.jsonl", {edited(l[1], set("samples_per_s", -1))});
         l.erase(l.begin() + 1);
       },
       "1 implausible: samples_per_s -1 is not positive", 1},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    const std::string dir = (temp_dir() / ("tampered-" + std::to_string(&c - cases.data()))).string();
    fs::remove_all(dir);
    fs::copy(clean.dir, dir, fs::copy_options::recursive);
    auto lines = clean.lines;
    c.apply(lines, dir);
    write_lines(dir + "/results.jsonl", lines);
    const auto r = run_ccsim("experiment " + file + " --no-plot --quiet --resume --out " + dir);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.err.find(fmt::format("resuming: {} of 4 points found in ", 4 - c.rerun)) != std::string::npos);
    CHECK(r.err.find(fmt::format("; {} re-run ({}", c.rerun, c.reason)) != std::string::npos);
    CHECK(line_count(r.err) == 1);
    CHECK(read_file(dir + "/results.json") == clean.json);
    CHECK(read_file(dir + "/results.csv") == clean.csv);
    // The log is this run's again: one checked line per point, in point order, and no rank log left.
    const auto after = lines_of(dir + "/results.jsonl");
    REQUIRE(after.size() == 4);
    for (std::size_t i = 0; i < after.size(); ++i) {
      const auto line = nlohmann::json::parse(after[i]);
      CHECK(line["point"] == i);
      CHECK(line["checksum"] == resealed(line)["checksum"]);
    }
    CHECK_FALSE(fs::exists(dir + "/results.rank0.jsonl"));
  }
}

TEST_CASE("experiment --resume: torn and garbage lines are skipped and counted - a valid duplicate is no conflict",
          "[cli]")
{
  const auto& clean = clean_run();
  const auto file   = write_temp_file("four.json", FOUR);
  const std::string dir = (temp_dir() / "torn").string();
  fs::remove_all(dir);
  fs::copy(clean.dir, dir, fs::copy_options::recursive);
  auto lines = clean.lines;
  lines.push_back(lines[0]);                                    // the same line twice: the same answer
  lines[1] = lines[1].substr(0, lines[1].size() / 2);           // torn by a kill
  lines.push_back(std::string("\0\0garbage", 9));               // NUL bytes and garbage
  write_lines(dir + "/results.jsonl", lines);
  const auto r = run_ccsim("experiment " + file + " --no-plot --quiet --resume --out " + dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("resuming: 3 of 4 points found in ") != std::string::npos);
  CHECK(r.err.find("re-run") == std::string::npos); // nothing that named a point was rejected
  CHECK(r.err.find("(2 unreadable lines skipped)") != std::string::npos);
  CHECK(read_file(dir + "/results.json") == clean.json);
}

TEST_CASE("experiment: a bad value at point 3 of 4 is one line before any point runs - --keep-going runs the rest",
          "[cli]")
{
  const auto file = write_temp_file("bad-point.json", R"({"name": "bad-point", "base": {"topology": "v100x4-eth40g",
    "workload": "bert-large", "gpus": 64}, "axes": {"algorithm": ["adam", "onebit-adam", "V100", "lamb"]}})");
  const std::string dir = (temp_dir() / "bad-point").string();
  const auto r          = run_ccsim("experiment " + file + " --no-plot --quiet --out " + dir);
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(line_count(r.err) == 1);
  CHECK(r.err.rfind("ccsim: " + file + ": point 3 of 4 (algorithm=V100, ", 0) == 0);
  CHECK(r.err.find("--algorithm: unknown algorithm 'V100'") != std::string::npos);
  CHECK_FALSE(fs::exists(dir)); // nothing ran, nothing was written

  const auto k = run_ccsim("experiment " + file + " --no-plot --quiet --keep-going --format json --out " + dir);
  INFO(k.err);
  CHECK(k.exit_code == 1);
  const auto doc = nlohmann::json::parse(k.out);
  REQUIRE(doc["rows"].size() == 4);
  CHECK(doc["points_done"] == 3);
  CHECK(doc["rows"][2]["error"].get<std::string>().find("unknown algorithm 'V100'") != std::string::npos);
  for (const int i : {0, 1, 3})
    CHECK(doc["rows"][i]["samples_per_s"].get<double>() > 0);
}

TEST_CASE("experiment: every bad point is found before the first runs - and counted in the one line", "[cli]")
{
  // 80 points, the last 20 with an algorithm that does not exist: found before point 1 runs (axes expand in key
  // order, the last fastest).
  const auto file = write_temp_file("late-bad.json", R"({"name": "late-bad", "base": {"topology": "a100x8-ib100",
    "workload": "bert-large", "gpus": 16}, "axes": {"algorithm": ["adam", "lamb", "onebit-adam", "V100"],
    "bandwidth_gbps": [10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150, 160, 170, 180, 190, 200]}})");
  const std::string dir = (temp_dir() / "late-bad").string();
  const auto r          = run_ccsim("experiment " + file + " --no-plot --quiet --out " + dir);
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(line_count(r.err) == 1);
  CHECK(r.err.find(": point 61 of 80 (") != std::string::npos);
  CHECK(r.err.find("(19 more of the 80 points cannot run; --keep-going runs the others)") != std::string::npos);
  CHECK_FALSE(fs::exists(dir));
}

TEST_CASE("A FIFO where ccsim writes a trace or keeps its results log is one line - never a hang", "[cli][mutation]")
{
  const std::string fifo = (temp_dir() / "a.fifo").string();
  REQUIRE(mkfifo(fifo.c_str(), 0644) == 0);
  const auto trace = run_ccsim("simulate --topology a100x8-ib100 --workload bert-large --algorithm adam --gpus 8 "
                               "--quiet --trace " + fifo);
  CHECK(trace.exit_code == 2);
  CHECK(trace.err == "ccsim: --trace: '" + fifo + "' is not a regular file (a FIFO, device or socket)\n");

  const auto file       = write_temp_file("four.json", FOUR);
  const std::string dir = (temp_dir() / "fifo-out").string();
  fs::create_directories(dir);
  REQUIRE(mkfifo((dir + "/results.jsonl").c_str(), 0644) == 0);
  for (const char* resume : {" --resume", ""}) {
    const auto r = run_ccsim("experiment " + file + " --no-plot --quiet --out " + dir + resume);
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(line_count(r.err) == 1);
    CHECK(r.err.find("results.jsonl' is not a regular file (a FIFO, device or socket)") != std::string::npos);
  }
}

TEST_CASE("experiment: --fresh and --resume together are one line", "[cli]")
{
  const auto r = run_ccsim("experiment " + write_temp_file("four.json", FOUR) + " --no-plot --fresh --resume --out " +
                           (temp_dir() / "never-fresh").string());
  CHECK(r.exit_code == 2);
  CHECK(r.err == "ccsim: --fresh: removes the results --resume would reuse: give one of them\n");
}
