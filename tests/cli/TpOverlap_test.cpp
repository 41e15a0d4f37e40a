// simulate --tp-overlap (Megatron-Core's --tp-comm-overlap; docs/overlap.md, "Tensor-parallel overlap"): the step's
// exposed tensor-parallel time falls by what the GEMMs hide, worked by hand from the report's own GEMM times and its
// tensor-parallel time with the overlap off; the traffic stays; the option is refused where it cannot apply.
#include "tests/support/RunCcsim.hpp"
#include "tests/support/SimulateJson.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>

using ccsim::test::line_count;
using ccsim::test::run_ccsim;
using ccsim::test::simulate_json;

namespace {
// Korthikanti et al.'s 22B GPT (48 layers, sequence parallel, selective recomputation) on one H100 node: tp 8, dp 1,
// so the tensor-parallel all-reduce is the step's only collective.
const std::string kWorkload = std::string(CCSIM_SOURCE_DIR) + "/experiments/large-scale/gpt-22b-selective.json";
const std::string kRun = "--topology h100x8-ib400x8 --workload " + kWorkload + " --algorithm megatron-dp --gpus 8";

double num(const nlohmann::json& j) { return j.get<double>(); }

/// One layer's GEMM `name` in `pass` (seconds), from the report's per-operator account.
double gemm_s(const nlohmann::json& r, const std::string& name, const std::string& pass)
{
  for (const auto& op : r["operators"]["layer"]["ops"])
    if (op["name"] == name && op["pass"] == pass)
      return num(op["time_ms"]) / 1e3;
  FAIL("no GEMM " << name << " (" << pass << ")");
  return 0;
}

/// What the overlap hides per step, worked by hand: every layer's 10 collectives (each half an all-reduce's bytes, so
/// tp_s / (2 x all-reduces) each) beside their GEMMs, `layers` x `m` times. Transformer Engine's methods: ring
/// exchange over n = tp chunks exposes max(0, t_c - (n-1)/n t_g); the pipelined reduce-scatter (4 chunks)
/// t_c / 4 + 3/4 max(0, t_c - t_g); bulk max(0, t_c - t_g).
double hidden_s(const nlohmann::json& on, double tp_s, int all_reduces, int layers, int m, int tp)
{
  const double c = tp_s / (2.0 * all_reduces);
  const double n = tp;
  auto ring = [&](double g) { return c - std::max(0.0, c - (n - 1) / n * g); };
  auto pipe = [&](double g) { return c - (c / 4 + 0.75 * std::max(0.0, c - g)); };
  auto bulk = [&](double g) { return c - std::max(0.0, c - g); };
  const double per_layer =
      ring(gemm_s(on, "qkv", "forward")) + pipe(gemm_s(on, "out_proj", "forward")) + ring(gemm_s(on, "fc1", "forward")) +
      pipe(gemm_s(on, "fc2", "forward")) + ring(gemm_s(on, "fc2.dgrad", "backward")) +
      bulk(gemm_s(on, "fc1.dgrad", "backward")) + bulk(gemm_s(on, "fc1.wgrad", "backward")) +
      ring(gemm_s(on, "out_proj.dgrad", "backward")) + bulk(gemm_s(on, "qkv.dgrad", "backward")) +
      bulk(gemm_s(on, "qkv.wgrad", "backward"));
  return static_cast<double>(layers) * m * per_layer;
}
} // namespace

TEST_CASE("TP overlap: --tp-overlap cuts the exposed tensor-parallel time by what the GEMMs hide", "[cli]")
{
  const auto off = simulate_json(kRun);
  const auto on  = simulate_json(kRun + " --tp-overlap");
  // Off: the tensor-parallel all-reduce is all the communication, and all of it exposed.
  const double tp_s = num(off["breakdown"]["comm_s"]);
  REQUIRE(tp_s > 0);
  CHECK(num(off["breakdown"]["exposed_comm_s"]) == Approx(tp_s).epsilon(1e-12));
  CHECK(off["config"].value("tp_overlap", false) == false);
  CHECK(on["config"]["tp_overlap"] == true);
  // The traffic is the same; only its exposed part shrinks. 48 layers, 1 micro-batch of 4, 5 x 48 + 2 all-reduces.
  CHECK(num(on["breakdown"]["comm_s"]) == Approx(tp_s).epsilon(1e-9));
  CHECK(on["bytes_per_gpu"] == off["bytes_per_gpu"]);
  REQUIRE(on["config"]["grad_accumulation"] == 1);
  const double hidden = hidden_s(on, tp_s, 242, 48, 1, 8);
  INFO("tp " << tp_s << " s, hidden " << hidden << " s");
  CHECK(hidden > 0.5 * tp_s); // most of it hides at tp 8 on NVLink (each collective is shorter than its GEMM)
  CHECK(num(off["breakdown"]["exposed_comm_s"]) - num(on["breakdown"]["exposed_comm_s"]) ==
        Approx(hidden).epsilon(1e-6));
  CHECK(num(off["step_time_s"]) - num(on["step_time_s"]) == Approx(hidden).epsilon(1e-6));
  CHECK(num(on["breakdown"]["compute_s"]) == num(off["breakdown"]["compute_s"]));
}

TEST_CASE("TP overlap: a pipeline hides the same per stage, in fast and exact fidelity alike", "[cli]")
{
  // tp 4 x pp 2: 24 layers per stage, 5 x 24 + 1 all-reduces per micro-batch (the stage runs the embedding's or the
  // output head's), 1 micro-batch. The tensor-parallel op runs after the pipeline's flush, so the step falls by what
  // the overlap hides, whichever way the pipeline is computed. Each micro-batch's collectives lengthen its passes on
  // both stages, so the critical path holds m + (pp - 1) = 2 micro-batches' worth (comm_s counts them so): the op's
  // own time is half of it, and twice what one micro-batch hides comes off the step.
  const std::string run = kRun + " --tp 4 --pp 2";
  double hidden_by[2] = {0, 0};
  int i = 0;
  for (const std::string fidelity : {"fast", "exact"}) {
    INFO(fidelity);
    const auto off = simulate_json(run + " --fidelity " + fidelity);
    const auto on  = simulate_json(run + " --fidelity " + fidelity + " --tp-overlap on");
    // The step's comm less the pipeline's sends (m x (forward + backward message)) is the tensor-parallel time.
    const auto& phase = off["phases"].at(0).at("breakdown");
    const double sends =
        num(phase.at("pipeline_forward_comm_ms")) / 1e3 + num(phase.at("pipeline_backward_comm_ms")) / 1e3;
    const double tp_s  = (num(off["breakdown"]["comm_s"]) - sends) / 2;
    const double hidden = 2 * hidden_s(on, tp_s, 121, 24, 1, 4);
    CHECK(num(on["breakdown"]["comm_s"]) == Approx(num(off["breakdown"]["comm_s"])).epsilon(1e-9));
    CHECK(num(off["step_time_s"]) - num(on["step_time_s"]) == Approx(hidden).epsilon(1e-6));
    CHECK(num(off["breakdown"]["exposed_comm_s"]) - num(on["breakdown"]["exposed_comm_s"]) ==
          Approx(hidden).epsilon(1e-6));
    hidden_by[i++] = hidden;
  }
  CHECK(hidden_by[0] == Approx(hidden_by[1]).epsilon(0.05)); // fast and exact within a few percent
}

TEST_CASE("TP overlap: off is the run without the option, and the workload's default turns it on", "[cli]")
{
  const auto plain = run_ccsim("simulate --format json --quiet " + kRun);
  const auto off   = run_ccsim("simulate --format json --quiet " + kRun + " --tp-overlap off");
  REQUIRE(plain.exit_code == 0);
  auto without_wall = [](std::string text) {
    auto j = nlohmann::json::parse(text);
    j["sim"].erase("wall_s");
    return j;
  };
  CHECK(without_wall(off.out) == without_wall(plain.out));

  auto doc = nlohmann::json::parse(ccsim::test::read_file(kWorkload));
  doc["defaults"]["tp_overlap"] = true;
  const auto file = ccsim::test::write_temp_file("tp-overlap-22b.json", doc.dump());
  const std::string by_default = "--topology h100x8-ib400x8 --workload " + file + " --algorithm megatron-dp --gpus 8";
  const auto on = simulate_json(kRun + " --tp-overlap");
  const auto dflt = simulate_json(by_default);
  CHECK(dflt["config"]["tp_overlap"] == true);
  CHECK(dflt["step_time_s"] == on["step_time_s"]);
  CHECK(simulate_json(by_default + " --tp-overlap off")["step_time_s"] == nlohmann::json::parse(plain.out)["step_time_s"]);
  // At tp 1 the default has nothing to overlap and does not apply.
  CHECK(simulate_json("--topology h100x8-ib400x8 --workload " + file + " --algorithm megatron-dp --gpus 1 --tp 1 "
                      "--allow-oom")["config"]
            .value("tp_overlap", false) == false);
}

TEST_CASE("TP overlap: refused in one line without tp > 1, sequence parallelism or a dense architecture", "[cli]")
{
  auto refused = [](const std::string& args, const std::string& says) {
    INFO(args);
    const auto r = run_ccsim("simulate --quiet " + args);
    CHECK(r.exit_code == 2);
    CHECK(line_count(r.err) == 1);
    CHECK_THAT(r.err, Catch::Contains("--tp-overlap") && Catch::Contains(says));
  };
  refused("--topology h100x8-ib400x8 --workload " + kWorkload + " --algorithm megatron-dp --gpus 1 --tp 1 --allow-oom "
          "--tp-overlap",
          "--tp >= 2");
  refused("--topology h100x8-ib400x8 --workload llama2-7b --algorithm megatron-dp --gpus 8 --tp 8 --tp-overlap",
          "sequence parallelism");
  refused("--topology h100x8-ib400x8 --workload mixtral-8x7b --algorithm megatron-dp --gpus 8 --tp 2 --allow-oom "
          "--tp-overlap",
          "mixture of experts");
  refused("--topology a100x8-ib100 --workload gpt-13b --algorithm megatron-dp --gpus 8 --tp 4 --pp 2 --tp-overlap",
          "architecture");
  refused(kRun + " --tp-overlap maybe", "not one of: on, off");

  // The workload's key: only with sequence parallelism, one line at its JSON path.
  auto doc = nlohmann::json::parse(ccsim::test::read_file(kWorkload));
  doc["defaults"]["tp_overlap"]        = true;
  doc["defaults"]["sequence_parallel"] = false;
  const auto file = ccsim::test::write_temp_file("tp-overlap-no-sp.json", doc.dump());
  const auto r    = run_ccsim("simulate --quiet --topology h100x8-ib400x8 --workload " + file +
                              " --algorithm megatron-dp --gpus 8");
  CHECK(r.exit_code == 2);
  CHECK(line_count(r.err) == 1);
  CHECK_THAT(r.err, Catch::Contains("/defaults/tp_overlap") && Catch::Contains("sequence_parallel"));
}

TEST_CASE("TP overlap: an experiment's tp_overlap key runs both ways and names the axis", "[cli]")
{
  const nlohmann::json spec = {
      {"name", "tp-overlap"},
      {"base", {{"topology", "h100x8-ib400x8"}, {"workload", kWorkload}, {"algorithm", "megatron-dp"}, {"gpus", 8}}},
      {"axes", {{"tp_overlap", {false, true}}}}};
  const auto file = ccsim::test::write_temp_file("tp-overlap-experiment.json", spec.dump());
  const auto out  = ccsim::test::temp_dir() / "tp-overlap-experiment";
  const auto r    = run_ccsim("experiment " + file + " --out " + out.string() + " --no-plot --quiet --fresh");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto results = nlohmann::json::parse(ccsim::test::read_file(out / "results.json"));
  const auto& rows   = results.at("rows");
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].at("tp_overlap") == false);
  CHECK(rows[1].at("tp_overlap") == true);
  CHECK(num(rows[1].at("step_time_s")) < num(rows[0].at("step_time_s")));
  CHECK(num(rows[1].at("comm_s")) == Approx(num(rows[0].at("comm_s"))).epsilon(1e-9));
}
