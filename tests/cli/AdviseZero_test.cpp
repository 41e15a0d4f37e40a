// Issue 41's ZeRO stages beyond `simulate`: a workload's defaults.zero, `advise --zero` with and without --search,
// and the stage as advise's first memory fix. Every number is checked against separate `simulate` runs, the closed
// form each stage's rule gives (which stages an algorithm runs, which splits allow them), or a hand count.
#include "tests/support/RunCcsim.hpp"
#include "tests/support/SimulateJson.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <optional>
#include <string>

using ccsim::test::read_file;
using ccsim::test::run_ccsim;
using ccsim::test::simulate_json;
using ccsim::test::write_temp_file;

namespace {
// Issue 41's FSDP user: 4 x 8 A100-40GB over 2 x 100 GbE, Llama-3-8B, sequence 4,096, batch 512 in micro-batches of 1.
const std::string kCluster = "--topology a100x8-roce100x2 --gpus 32 --global-batch 512 ";

/// llama3-8b's preset at the user's sequence of 4,096 (advise has no --param) and micro-batch 1, with `defaults.zero`
/// set to `stage` when given, written to a temp file; its path.
std::string llama(std::optional<int> stage = std::nullopt)
{
  auto w = nlohmann::json::parse(read_file(std::string(CCSIM_SOURCE_DIR) + "/workloads/llama3-8b.json"));
  w["architecture"]["seq_len"]  = 4096;
  w["defaults"]["micro_batch"] = 1;
  if (stage)
    w["defaults"]["zero"] = *stage;
  return write_temp_file("llama3-8b-4k-zero" + (stage ? std::to_string(*stage) : std::string("-")) + ".json",
                         w.dump());
}

double num(const nlohmann::json& j) { return j.get<double>(); }
} // namespace

TEST_CASE("AdviseZero: a workload's defaults.zero is the stage of every algorithm that runs it, and --zero overrides",
          "[cli]")
{
  const auto file = llama(3);
  // megatron-dp runs stages 1-3: the workload's 3 is the stage, the very run --zero 3 gives (bytes per GPU included).
  const auto recipe = simulate_json(kCluster + "--workload " + file + " --algorithm megatron-dp --tp 1");
  const auto given  = simulate_json(kCluster + "--workload " + llama() + " --algorithm megatron-dp --tp 1 --zero 3");
  CHECK(recipe["config"]["zero_stage"] == 3);
  CHECK(num(recipe["step_time_s"]) == num(given["step_time_s"]));
  CHECK(num(recipe["bytes_per_gpu"]["inter_node"]) == num(given["bytes_per_gpu"]["inter_node"]));
  // --zero wins over the recipe.
  const auto one = run_ccsim("simulate --format json --quiet " + kCluster + "--workload " + file +
                             " --algorithm megatron-dp --tp 2 --zero 1");
  INFO(one.err);
  REQUIRE(one.exit_code == 0);
  CHECK(nlohmann::json::parse(one.out)["config"]["zero_stage"] == 1);
  // 1-bit Adam has no ZeRO stages (its descriptor lists none): it runs as it always does, and the report names none.
  const auto onebit = simulate_json(kCluster + "--workload " + file + " --algorithm onebit-adam --tp 8");
  CHECK(!onebit["config"].contains("zero_stage"));
  // With a pipeline DeepSpeed's rule keeps stage 3 out: megatron-dp falls back to its own stage 1, not an error.
  const auto piped = simulate_json(kCluster + "--workload " + file + " --algorithm megatron-dp --tp 8 --pp 2");
  CHECK(!piped["config"].contains("zero_stage"));
}

TEST_CASE("AdviseZero: defaults.zero outside 0-3 is a one-line error naming the file and its JSON path", "[cli]")
{
  auto w = nlohmann::json::parse(read_file(std::string(CCSIM_SOURCE_DIR) + "/workloads/llama3-8b.json"));
  w["defaults"]["zero"] = 4;
  const auto file = write_temp_file("llama3-8b-zero4.json", w.dump());
  const auto r    = run_ccsim("simulate " + kCluster + "--workload " + file + " --algorithm megatron-dp --quiet");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find(file + ": /defaults/zero:") != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

TEST_CASE("AdviseZero: advise --zero 3 runs every algorithm with that stage at it, the others at their own", "[cli]")
{
  const auto r = run_ccsim("advise " + kCluster + "--workload " + llama() + " --tp 1 --zero 3 "
                           "--algorithms megatron-dp,zeropp,onebit-adam --format json --quiet");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto d = nlohmann::json::parse(r.out);
  std::map<std::string, nlohmann::json> rows;
  for (const auto& row : d["ranking"])
    rows[row["algorithm"].get<std::string>()] = row;
  // ZeRO-3 fits the user's 40 GB at tp 1 for both stage-3 algorithms; each row is simulate's own run at --zero 3.
  for (const std::string a : {"megatron-dp", "zeropp"}) {
    INFO(a);
    REQUIRE(rows.count(a) == 1);
    CHECK(rows[a]["split"]["zero_stage"] == 3);
    const auto s = simulate_json(kCluster + "--workload " + llama() + " --tp 1 --zero 3 --algorithm " + a);
    CHECK(num(rows[a]["samples_per_s"]) == Approx(num(s["samples_per_s"])).epsilon(1e-12));
  }
  // 1-bit Adam keeps whole fp32 optimizer state per GPU and has no stage 3: it does not fit at tp 1 either way, and
  // its reason is memory, not a refused stage.
  for (const auto& c : d["cannot_run"])
    CHECK(c["reason"].get<std::string>().find("does not run ZeRO stage") == std::string::npos);
  // The table names the stage in the split column.
  const auto t = run_ccsim("advise " + kCluster + "--workload " + llama() + " --tp 1 --zero 3 --algorithms megatron-dp --quiet");
  REQUIRE(t.exit_code == 0);
  CHECK(t.out.find("32 x 1 x 1, 1, ZeRO 3") != std::string::npos);
  // Several stages are a search's: one line naming the flag.
  const auto two = run_ccsim("advise " + kCluster + "--workload " + llama() + " --zero 1,3 --quiet");
  CHECK(two.exit_code == 2);
  CHECK(two.err.find("--zero: several values need --search") != std::string::npos);
}

TEST_CASE("AdviseZero: advise --search tries each stage an algorithm runs at every split that allows it", "[cli]")
{
  // gpt-350m on 16 GPUs at batch 64: with no --zero, megatron-dp (stages 1, 2, 3) is tried at all three stages where
  // pp = 1 and at stage 1 alone where pp > 1 (DeepSpeed's pipeline rule); adam (stage 0 only) once per split. So
  // megatron-dp's candidates = 3 x (splits with pp 1) + (splits with pp > 1), and adam's = all splits; the same
  // search with --zero 1 gives megatron-dp exactly adam's count.
  const std::string base = "advise --topology a100x8-ib100 --workload gpt-350m --gpus 16 --global-batch 64 --search "
                           "--no-prune --format json --quiet --algorithms adam,megatron-dp";
  const auto all  = run_ccsim(base);
  const auto one  = run_ccsim(base + " --zero 1");
  const auto pipe = run_ccsim(base + " --pp 1");
  INFO(all.err << one.err << pipe.err);
  REQUIRE(all.exit_code == 0);
  REQUIRE(one.exit_code == 0);
  REQUIRE(pipe.exit_code == 0);
  auto tried = [](const nlohmann::json& d) {
    std::map<std::string, int> n;
    for (const auto& row : d["ranking"])
      n[row["algorithm"].get<std::string>()] = row["search"]["splits_tried"].get<int>();
    return n;
  };
  // Parsed once and kept: a range-for over a temporary document's member dangles.
  const auto all_doc = nlohmann::json::parse(all.out), one_doc = nlohmann::json::parse(one.out);
  const auto a = tried(all_doc), o = tried(one_doc), p = tried(nlohmann::json::parse(pipe.out));
  REQUIRE(a.count("adam") == 1);
  REQUIRE(a.count("megatron-dp") == 1);
  const int splits = a.at("adam"), pp1 = p.at("adam");
  CHECK(pp1 < splits); // the model has layers to pipeline: some splits have pp > 1
  CHECK(a.at("megatron-dp") == 3 * pp1 + (splits - pp1));
  CHECK(o.at("megatron-dp") == splits);
  CHECK(p.at("megatron-dp") == 3 * pp1);
  // The search's pick for megatron-dp is at least as fast as the best stage-1 split (stage 1 is among its candidates).
  std::map<std::string, double> best, best1;
  for (const auto& row : all_doc["ranking"])
    best[row["algorithm"].get<std::string>()] = num(row["samples_per_s"]);
  for (const auto& row : one_doc["ranking"])
    best1[row["algorithm"].get<std::string>()] = num(row["samples_per_s"]);
  CHECK(best.at("megatron-dp") >= best1.at("megatron-dp") * (1 - 1e-12));
}

TEST_CASE("AdviseZero: a higher ZeRO stage is advise's first memory fix - it keeps the split", "[cli]")
{
  // megatron-dp at tp 1 does not fit the user's 40 GB at stage 1 (issue 41: 54.9 GB); stage 3 does (26.9 GB).
  const auto r = run_ccsim("advise " + kCluster + "--workload " + llama() + " --tp 1 --algorithms megatron-dp --format json "
                           "--quiet");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto d = nlohmann::json::parse(r.out);
  REQUIRE(d["cannot_run"].size() == 1);
  const auto& fixes = d["cannot_run"][0]["memory"]["would_fit"];
  REQUIRE(!fixes.empty());
  const std::string first = fixes[0]["change"].get<std::string>();
  CHECK((first == "--zero 2" || first == "--zero 3"));
  const auto s = simulate_json(kCluster + "--workload " + llama() + " --tp 1 --algorithm megatron-dp " + first);
  CHECK(num(fixes[0]["memory_gb_per_gpu"]) == Approx(num(s["memory_gb_per_gpu"])).epsilon(1e-12));
  CHECK(num(s["memory_gb_per_gpu"]) <= 40.0);
}

TEST_CASE("AdviseZero: advise --search tries every whole number of layers per model chunk at pp >= 2", "[cli]")
{
  // gpt-350m has 24 layers: at pp 2 a stage holds 12, which split into 1, 2, 3, 4, 6 or 12 chunks of whole layers
  // (Megatron's interleaved 1F1B), so each pp-2 split of a data-parallel algorithm is tried 6 times; --vpp 1 keeps
  // plain 1F1B only and --vpp 2,5 the one of those that divides 12.
  const std::string base = "advise --topology a100x8-ib100 --workload gpt-350m --gpus 16 --global-batch 64 --search "
                           "--no-prune --pp 2 --zero 1 --algorithms megatron-dp --format json --quiet";
  auto tried = [&](const std::string& extra) {
    const auto r = run_ccsim(base + extra);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const auto d = nlohmann::json::parse(r.out);
    REQUIRE(d["ranking"].size() == 1);
    return d["ranking"][0]["search"]["splits_tried"].get<int>();
  };
  const int plain = tried(" --vpp 1");
  CHECK(plain > 0);
  CHECK(tried("") == 6 * plain);
  CHECK(tried(" --vpp 2,5") == plain);
  // Without search one value, given to the run: the split column names it.
  const auto t = run_ccsim("advise --topology a100x8-ib100 --workload gpt-350m --gpus 16 --global-batch 64 --tp 2 "
                           "--pp 2 --vpp 3 --algorithms megatron-dp --quiet");
  INFO(t.err);
  REQUIRE(t.exit_code == 0);
  CHECK(t.out.find("4 x 2 x 2, ") != std::string::npos);
  CHECK(t.out.find(", vpp 3") != std::string::npos);
}
