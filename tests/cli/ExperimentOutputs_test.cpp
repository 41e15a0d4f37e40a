// Issue 31's experiment outputs: a point that did not run says why in a status column of its own (the number columns
// stay narrow); --allow-oom runs it and marks it; paths inside an experiment resolve against its folder, and a
// missing one says where it was looked for; speedups over a baseline per algorithm or per row; paper_points.
#include "tests/support/RunCcsim.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using ccsim::test::lines_of_text;
using ccsim::test::read_file;
using ccsim::test::run_ccsim;
using ccsim::test::temp_dir;
using ccsim::test::write_temp_file;
using json = nlohmann::json;

namespace {
// Adam on GPT-13B over 32 V100s at the workload's tp 4 x pp 2 needs ~47 GB per GPU even with activation
// recomputation (topologies/v100x8-ib100.json has 32): a point that cannot run. Its neighbour, BERT-Large, fits.
const char* OOM = R"({"name": "oom", "base": {"topology": "v100x8-ib100", "algorithm": "adam", "gpus": 32,
  "global_batch": 512, "micro_batch": 16}, "rows": [{"label": "fits", "workload": "bert-large"},
  {"label": "too big", "workload": "gpt-13b"}]})";

json run_json(const std::string& file, const std::string& name, const std::string& flags = "")
{
  const auto r = run_ccsim("experiment " + file + " --no-plot --quiet --format json --out " +
                           (temp_dir() / name).string() + " " + flags);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}
} // namespace

TEST_CASE("experiment: a failed point's error is in a status column - the samples/s cell stays empty and narrow",
          "[cli]")
{
  const auto file = write_temp_file("oom.json", OOM);
  const auto r = run_ccsim("experiment " + file + " --no-plot --quiet --keep-going --out " + (temp_dir() / "oom").string());
  INFO(r.err);
  CHECK(r.exit_code == 1); // --keep-going: every other point ran, the run exits 1
  const auto lines = lines_of_text(r.out);
  // oom (), fixed: ..., the header, the rule, two rows (the failed one wrapped over several lines), "wrote ..."
  REQUIRE(lines.size() > 6);
  const std::string& header = lines[2];
  CHECK(header.find("samples/s") != std::string::npos);
  CHECK(header.substr(header.size() - 6) == "status");
  const auto status_at = header.find("status");
  const auto samples_end = header.find("samples/s") + std::string("samples/s").size();
  bool found = false;
  for (std::size_t i = 4; i < lines.size(); ++i) {
    CHECK(lines[i].size() <= 160);
    if (lines[i].rfind("too big", 0) == 0) {
      found = true;
      // nothing under samples/s: the row's text jumps from its workload to the status column
      CHECK(lines[i].find_first_not_of(' ', lines[i].find("gpt-13b") + 7) == status_at);
      CHECK(lines[i].substr(status_at).rfind("not run: ", 0) == 0);
    }
    if (lines[i].rfind("fits", 0) == 0)
      CHECK(lines[i].find_first_not_of(' ', lines[i].find("bert-large") + 10) < samples_end); // the number is there
  }
  CHECK(found);
  // results.csv: every line as wide as the header, the error in its own column
  std::vector<std::string> csv = lines_of_text(read_file(temp_dir() / "oom" / "results.csv"));
  REQUIRE(csv.size() == 3);
  CHECK(csv[0].substr(csv[0].size() - 6) == ",error");
  CHECK(csv[2].find(",,") != std::string::npos); // the failed row's metric cells are empty, not shifted
}

TEST_CASE("experiment --allow-oom: the point that does not fit runs and is marked in the rows and the table", "[cli]")
{
  const auto file = write_temp_file("oom-allowed.json", OOM);
  const auto doc  = run_json(file, "oom-allowed", "--allow-oom");
  REQUIRE(doc["rows"].size() == 2);
  CHECK(doc["rows"][0]["fits_memory"] == "yes");
  CHECK(doc["rows"][1]["fits_memory"] == "no");
  CHECK(doc["rows"][1]["memory_gb_per_gpu"].get<double>() > 32);
  CHECK(doc["rows"][1]["samples_per_s"].get<double>() > 0);
  const auto t = run_ccsim("experiment " + file + " --no-plot --quiet --allow-oom --out " +
                           (temp_dir() / "oom-allowed").string());
  CHECK(t.exit_code == 0);
  CHECK(t.out.find("does not fit the GPUs' memory (ran under --allow-oom)") != std::string::npos);
}

TEST_CASE("experiment: a relative topology path resolves against the experiment's folder - a missing one says so",
          "[cli]")
{
  const fs::path dir = temp_dir() / "beside";
  fs::create_directories(dir / "clusters");
  fs::copy_file(fs::path(CCSIM_SOURCE_DIR) / "topologies" / "v100x4-eth40g.json", dir / "clusters" / "mine.json",
                fs::copy_options::overwrite_existing);
  const std::string body = R"({"name": "beside", "base": {"topology": "clusters/mine.json", "workload": "bert-large",
    "algorithm": "adam", "gpus": 8}})";
  std::ofstream(dir / "beside.json") << body;
  // The test runs in the build folder: the path means nothing there, only beside the experiment.
  REQUIRE_FALSE(fs::exists("clusters/mine.json"));
  const auto doc = run_json((dir / "beside.json").string(), "beside-out");
  CHECK(doc["rows"][0]["topology"] == "clusters/mine.json"); // the row says what the file says
  CHECK(doc["rows"][0]["samples_per_s"].get<double>() > 0);

  std::ofstream(dir / "missing.json") << R"({"name": "missing", "base": {"topology": "h100-roce.json",
    "workload": "bert-large", "algorithm": "adam", "gpus": 8}})";
  const auto r = run_ccsim("experiment " + (dir / "missing.json").string() + " --no-plot --quiet --out " +
                           (temp_dir() / "missing-out").string());
  CHECK(r.exit_code == 2);
  CHECK(r.err == "ccsim: " + (dir / "missing.json").string() + ": /base/topology: 'h100-roce.json' (resolved against " +
                     (dir / "").string() + ", the experiment file's folder): no such file\n");
}

TEST_CASE("experiment: speedups over a baseline per algorithm and per row", "[cli]")
{
  // SDP4Bit over Megatron's sharded DP, the rest over Adam; the last row over Megatron by its own "baseline".
  const auto file = write_temp_file("baselines.json", R"({"name": "baselines", "base": {"topology": "a100x4-slingshot100",
    "workload": "gpt-1.3b", "gpus": 32, "global_batch": 32, "micro_batch": 1},
    "rows": [{"algorithm": "adam"}, {"algorithm": "megatron-dp"}, {"algorithm": "sdp4bit"},
             {"algorithm": "zeropp", "baseline": "megatron-dp"}],
    "baseline": {"algorithm": "adam", "by_algorithm": {"sdp4bit": "megatron-dp"}}})");
  const auto rows = run_json(file, "baselines")["rows"];
  REQUIRE(rows.size() == 4);
  const double adam = rows[0]["samples_per_s"].get<double>(), megatron = rows[1]["samples_per_s"].get<double>();
  CHECK(rows[0]["speedup"].get<double>() == 1.0);
  CHECK(rows[1]["speedup"].get<double>() == Approx(megatron / adam).epsilon(1e-12));
  CHECK(rows[1]["speedup_over"] == "adam");
  CHECK(rows[2]["speedup"].get<double>() == Approx(rows[2]["samples_per_s"].get<double>() / megatron).epsilon(1e-12));
  CHECK(rows[2]["speedup_over"] == "megatron-dp");
  CHECK(rows[3]["speedup"].get<double>() == Approx(rows[3]["samples_per_s"].get<double>() / megatron).epsilon(1e-12));
  CHECK(rows[3]["speedup_over"] == "megatron-dp");
}

TEST_CASE("experiment: a baseline or paper_points that cannot be used is one line naming the file and the key",
          "[cli][mutation]")
{
  const std::string base = R"("base": {"topology": "v100x4-eth40g", "workload": "bert-large", "gpus": 8},
    "axes": {"algorithm": ["adam", "onebit-adam"]})";
  struct Case {
    std::string body, expected;
  };
  const std::vector<Case> cases = {
      {R"("baseline": {"algorithm": "lamb"})", "/baseline/algorithm: 'lamb' is run by no point, so no speedup can be taken over it"},
      {R"("baseline": {"by_algorithm": {"onebit-adam": 3}})", "/baseline/by_algorithm/onebit-adam: must be a string, not number"},
      {R"("baseline": {"by_algorithm": {"slamb": "adam"}})",
       "/baseline/by_algorithm/slamb: 'slamb' (the algorithm this baseline is for) is run by no point"},
      {R"("baseline": {})", "/baseline: names no baseline: give \"algorithm\", \"by_algorithm\" or both"},
      {R"("figure": {"kind": "scaling", "x": "gpus"}, "paper_points": {"source": "", "points": [{"gpus": 8, "samples_per_s": 1}]})",
       "/paper_points/source: must say where the points come from (paper, table or figure)"},
      {R"("figure": {"kind": "scaling", "x": "gpus"}, "paper_points": {"source": "T1", "points": [{"gpus": 8}]})",
       "/paper_points/points/0/samples_per_s: missing required field"},
      {R"("figure": {"kind": "scaling", "x": "gpus"}, "paper_points": {"source": "T1", "points": [{"gpus": 8, "samples_per_s": -1}]})",
       "/paper_points/points/0/samples_per_s: "},
      {R"("figure": {"kind": "breakdown"}, "paper_points": {"source": "T1", "points": []})",
       "/paper_points: is drawn on scaling and speedup-vs-bandwidth figures only (figure.kind is 'breakdown')"},
  };
  int i = 0;
  for (const auto& c : cases) {
    const auto file = write_temp_file("bad-baseline" + std::to_string(i++) + ".json",
                                      "{\"name\": \"bad\", " + base + ", " + c.body + "}");
    const auto r = run_ccsim("experiment " + file + " --no-plot --quiet --out " + (temp_dir() / "bad").string());
    INFO(c.body << "\n" << r.err);
    CHECK(r.exit_code == 2);
    CHECK(ccsim::test::line_count(r.err) == 1);
    CHECK(r.err.rfind("ccsim: " + file + ": " + c.expected, 0) == 0);
  }
}
