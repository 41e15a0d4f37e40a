// simulate --framework (the training stack; docs/user-guide.md, "Training stack"): the flag stands for the workload's
// defaults.framework both ways, a pure-compute step scales by the GPU's share exactly, and what cannot run that stack
// is one line.
#include "tests/support/RunCcsim.hpp"
#include "tests/support/SimulateJson.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

using ccsim::test::line_count;
using ccsim::test::run_ccsim;
using ccsim::test::simulate_json;

namespace {
const std::string kLarge = std::string(CCSIM_SOURCE_DIR) + "/experiments/large-scale/";

double step_s(const std::string& args) { return simulate_json(args)["step_time_s"].get<double>(); }
} // namespace

TEST_CASE("Framework: --framework stands for the workload's defaults.framework, both ways", "[cli]")
{
  // MT-NLG's workload names megatron-deepspeed; Korthikanti's 530B (the same shape) names none.
  const std::string run = "--topology a100x8-ib200x8 --algorithm megatron-dp --gpus 2240 --global-batch 1920 "
                          "--micro-batch 1 --tp 8 --pp 35 --workload ";
  const double mtnlg       = step_s(run + kLarge + "gpt-530b-mtnlg.json");
  const double korthikanti = step_s(run + kLarge + "gpt-530b-full.json");
  CHECK(step_s(run + kLarge + "gpt-530b-full.json --framework megatron-deepspeed") == mtnlg);
  CHECK(step_s(run + kLarge + "gpt-530b-mtnlg.json --framework megatron-lm") == korthikanti);
  CHECK(mtnlg > 1.3 * korthikanti); // 1 / 0.708 on the compute, less on the communication
}

TEST_CASE("Framework: a step of compute alone takes 1 / share as long", "[cli]")
{
  // Korthikanti's 22B on one node, tp 8, dp 1, pp 1: the tensor-parallel all-reduces are all the communication. The
  // topology's share set to 0.5, a binary fraction: compute doubles exactly, the communication stays.
  std::ifstream in(std::string(CCSIM_SOURCE_DIR) + "/topologies/a100x8-ib200x8.json");
  auto topo = nlohmann::json::parse(in);
  topo["gpu"]["compute"]["framework_efficiency"]["megatron-deepspeed"] = 0.5;
  const std::string path = (ccsim::test::temp_dir() / "framework-half.json").string();
  {
    std::ofstream out(path);
    out << topo.dump();
  }
  const std::string run = "--topology " + path + " --algorithm megatron-dp --gpus 8 --workload " + kLarge +
                          "gpt-22b-full.json";
  const auto ref  = simulate_json(run);
  const auto slow = simulate_json(run + " --framework megatron-deepspeed");
  const auto& a = ref.at("breakdown");
  const auto& b = slow.at("breakdown");
  CHECK(b.at("compute_s").get<double>() == Approx(2 * a.at("compute_s").get<double>()).epsilon(1e-9));
  CHECK(b.at("comm_s").get<double>() == Approx(a.at("comm_s").get<double>()).epsilon(1e-9));
}

TEST_CASE("Framework: what cannot run the stack is one line, exit 2", "[cli]")
{
  const std::string run = "--algorithm megatron-dp --gpus 8 --workload " + kLarge + "gpt-22b-selective.json";
  const auto unknown = run_ccsim("simulate --topology a100x8-ib200x8 " + run + " --framework deepspeed");
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err == "ccsim: --framework: 'deepspeed' is not one of: megatron-lm, megatron-deepspeed\n");
  const auto h100 = run_ccsim("simulate --topology h100x8-ib400x8 " + run + " --framework megatron-deepspeed");
  CHECK(h100.exit_code == 2);
  CHECK(line_count(h100.err) == 1);
  CHECK(h100.err.find("h100x8-ib400x8.json: /gpu/compute/framework_efficiency: has no entry for megatron-deepspeed") !=
        std::string::npos);
  const auto overlap =
      run_ccsim("simulate --topology a100x8-ib200x8 " + run + " --framework megatron-deepspeed --tp-overlap");
  CHECK(overlap.exit_code == 2);
  CHECK(overlap.err == "ccsim: --tp-overlap: is Megatron-Core's --tp-comm-overlap, which megatron-deepspeed does not "
                       "run\n");
  // A workload whose recipe overlaps (defaults.tp_overlap) run as DeepSpeed: refused, not dropped in silence.
  std::ifstream in(kLarge + "gpt-22b-selective.json");
  auto work                        = nlohmann::json::parse(in);
  work["defaults"]["tp_overlap"]   = true;
  const std::string path           = (ccsim::test::temp_dir() / "framework-overlap.json").string();
  {
    std::ofstream out(path);
    out << work.dump();
  }
  const std::string own = "simulate --topology a100x8-ib200x8 --algorithm megatron-dp --gpus 8 --workload " + path;
  REQUIRE(run_ccsim(own).exit_code == 0);
  const auto recipe = run_ccsim(own + " --framework megatron-deepspeed");
  CHECK(recipe.exit_code == 2);
  CHECK(line_count(recipe.err) == 1);
  CHECK(recipe.err.find("--framework: megatron-deepspeed: workload framework-overlap sets defaults.tp_overlap") !=
        std::string::npos);
  CHECK(run_ccsim(own + " --framework megatron-deepspeed --tp-overlap off").exit_code == 0);
}
