// Adding an algorithm is one file pair and one registry line: the toy of tests/api/toy/ToyAlgorithm.{hpp,cpp},
// registered below as the built-in ones are, is listed, simulates, trains, takes its parameter through both --param
// paths, has its memory counted, and is rejected nowhere. Its numbers are held to what it must equal by
// construction: at toy_share = 1 its plan is adam's (DensePlan) and its update is sgd without momentum.
#include "tests/api/toy/ToyAlgorithm.hpp"

#include "algorithms/MemoryFootprint.hpp"
#include "algorithms/OptimizerFactory.hpp"
#include "algorithms/PaperDefaults.hpp"
#include "algorithms/Registry.hpp"
#include "algorithms/TrainParams.hpp"
#include "algorithms/Training.hpp"
#include "api/advise/AdviseFilters.hpp"
#include "api/advise/Advisor.hpp"
#include "api/advise/ConvergenceEvidence.hpp"
#include "api/run/ResolvedRun.hpp"
#include "api/run/Simulation.hpp"
#include "api/training/TrainRuns.hpp"
#include "io/JsonInput.hpp"
#include "tests/support/RunCcsim.hpp"
#include "workloads/proxy/ProxyModel.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace ccsim;
using test::kToyName;

namespace {
/// The one registry line, run once per process before the toy is used.
void register_toy()
{
  static const bool registered = [] {
    algorithms::register_algorithm(test::toy_algorithm());
    return true;
  }();
  (void)registered;
}

api::SimulateRequest request(const std::string& algorithm, std::map<std::string, std::string> params = {})
{
  api::SimulateRequest req;
  req.topology  = "a100x8-ib100";
  req.workload  = "bert-large";
  req.algorithm = algorithm;
  req.gpus      = 16;
  req.params    = std::move(params);
  return req;
}

algorithms::TrainConfig train_config(const std::string& algorithm, numerics::Hyper hyper)
{
  algorithms::TrainConfig c;
  c.algorithm    = algorithm;
  c.steps        = 30;
  c.workers      = 4;
  c.global_batch = 64;
  c.hyper        = std::move(hyper);
  return c;
}

std::string error_of(const std::function<void()>& f)
{
  try {
    f();
  } catch (const io::InputError& e) {
    return e.what();
  }
  return "";
}
} // namespace

TEST_CASE("Toy algorithm: listed by ccsim list and the update registry", "[api]")
{
  register_toy();
  const auto all = algorithms::list_algorithms();
  const auto it  = std::find_if(all.begin(), all.end(), [](const auto& a) { return a.name == kToyName; });
  REQUIRE(it != all.end());
  CHECK(it->simulates);
  CHECK(it->trains);
  CHECK(it->description == test::toy_algorithm().description);
  CHECK(std::is_sorted(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.name < b.name; }));
  // The registry's order: after the 25 built-in algorithms that train.
  const auto trainable = algorithms::update_algorithm_infos();
  REQUIRE(trainable.size() == 26);
  CHECK(trainable.back().name == kToyName);
  const auto optimizers = algorithms::optimizer_algorithm_infos();
  CHECK(optimizers.back().name == kToyName);
  CHECK(algorithms::find_plan_algorithm(kToyName) != nullptr);
}

TEST_CASE("Toy algorithm: simulates as its plan says", "[api]")
{
  register_toy();
  // toy_share = 1 is adam's plan op for op: the same step time and bytes. Half the share: half the all-reduce, whose
  // ring moves 2(n-1)/n of its bytes per GPU, so the bytes per GPU halve too (within a byte per chunk of rounding).
  const auto adam = api::run_simulation_isolated(request("adam"));
  const auto full = api::run_simulation_isolated(request(kToyName));
  const auto half = api::run_simulation_isolated(request(kToyName, {{"toy_share", "0.5"}}));
  CHECK(full.step_time_s == adam.step_time_s);
  CHECK(full.samples_per_s == adam.samples_per_s);
  const double adam_bytes = adam.bytes_per_gpu.inter_node + adam.bytes_per_gpu.intra_node;
  const double half_bytes = half.bytes_per_gpu.inter_node + half.bytes_per_gpu.intra_node;
  REQUIRE(adam_bytes > 0);
  CHECK(half_bytes == Approx(adam_bytes / 2).epsilon(1e-6));
  CHECK(half.step_time_s < adam.step_time_s);
}

TEST_CASE("Toy algorithm: its parameter is one declaration in both --param paths", "[api]")
{
  register_toy();
  // simulate: the plan's key, checked against its range; train: the same declaration, in the help after the others.
  CHECK(api::resolve_run(request(kToyName, {{"toy_share", "0.25"}})).params.at("toy_share") == 0.25);
  CHECK(error_of([] { api::resolve_run(request(kToyName, {{"toy_share", "2"}})); })
            .find("--param toy_share") != std::string::npos);
  const auto* spec = algorithms::find_train_param("toy_share");
  REQUIRE(spec != nullptr);
  CHECK(algorithms::same_declaration(*spec, test::toy_share_param()));
  CHECK(algorithms::train_param_specs().back().key == "toy_share");
  CHECK(api::train_hyper({{"toy_share", "0.25"}}, {kToyName}, kToyName).at("toy_share") == 0.25);
  CHECK(error_of([] { api::train_hyper({{"toy_share", "2"}}, {kToyName}, kToyName); }).find("--param toy_share") !=
        std::string::npos);
  // adam does not read it: refused for adam alone, kept out of adam's share of a comparison
  CHECK(error_of([] { api::train_hyper({{"toy_share", "0.5"}}, {"adam"}, "adam"); }).find("is not read by adam") !=
        std::string::npos);
  CHECK(algorithms::hyper_for("adam", {{"toy_share", 0.5}, {"lr", 0.1}}) == numerics::Hyper{{"lr", 0.1}});
  CHECK(error_of([] { algorithms::check_train_params(kToyName, {{"beta1", 0.5}}, 4); })
            .find("is not a parameter of toy-share (accepted: lr, toy_share)") != std::string::npos);
}

TEST_CASE("Toy algorithm: trains through the shared loop", "[api]")
{
  register_toy();
  // At toy_share = 1 the update is x -= lr·mean(g), which is sgd with beta1 = 0 (m = 0·m + g): the same losses, bit
  // for bit, and the same bytes (a full ring all-reduce a step). At 0.5: ceil(n/2) values a step, 2(W-1)/W·4 bytes
  // each (numerics::ring_allreduce_bytes).
  const auto sgd  = algorithms::train(train_config("sgd", {{"lr", 0.05}, {"beta1", 0}}));
  const auto full = algorithms::train(train_config(kToyName, {{"lr", 0.05}}));
  CHECK(full.loss_curve == sgd.loss_curve);
  CHECK(full.bytes_per_worker == sgd.bytes_per_worker);
  CHECK(full.final_loss < full.loss_curve.front().second); // it learns
  const auto half = algorithms::train(train_config(kToyName, {{"lr", 0.05}, {"toy_share", 0.5}}));
  const std::uint64_t n = workloads::make_proxy_model("mlp", 1, "")->size();
  CHECK(sgd.bytes_per_worker == 30 * 6 * n); // 4 workers: 2·3/4 of 4 bytes = 6 bytes per value a step
  CHECK(half.bytes_per_worker == 30 * 6 * ((n + 1) / 2));
  CHECK(half.loss_curve == full.loss_curve); // the share is counted, not applied: the same steps
}

TEST_CASE("Toy algorithm: its memory extras are counted", "[api]")
{
  register_toy();
  // One persistent fp32 copy of the rank's parameters beyond adam's: 4 bytes x bert-large's parameters.
  const auto toy  = api::resolve_run(request(kToyName));
  const auto adam = api::resolve_run(request("adam"));
  CHECK(toy.memory.compression_bytes - adam.memory.compression_bytes ==
        Approx(4.0 * static_cast<double>(toy.shape.params_per_rank)).epsilon(1e-9));
  CHECK(toy.memory.optimizer_bytes == adam.memory.optimizer_bytes);
}

TEST_CASE("Toy algorithm: rejected nowhere", "[api]")
{
  register_toy();
  // advise offers it (and can be asked for it alone), the papers' defaults have none for it and keep a comparison's
  CHECK(api::advised_algorithms({kToyName}, /*pipelined=*/false, "bert-large") == std::vector<std::string>{kToyName});
  const auto offered = api::advised_algorithms({}, false, "bert-large");
  CHECK(std::find(offered.begin(), offered.end(), kToyName) != offered.end());
  CHECK(algorithms::algorithm_defaults(kToyName, 100, {}).empty());
  CHECK(algorithms::claim_defaults({kToyName}, "char-gpt", {}).empty());
  // 1-bit Adam's claim on char-gpt: its schedule, its peak rate (issue 42) and the per-tensor compression unit.
  CHECK(algorithms::claim_defaults({"onebit-adam", kToyName}, "char-gpt", {}).size() == 3);
  // a time curve: train runs, then simulates it (in a child process) on a cluster
  api::TrainRequest train;
  train.algorithms = {"adam", kToyName};
  train.steps      = 5;
  train.topology   = api::InputSource("a100x8-ib100");
  train.gpus       = 16;
  train.workload   = api::InputSource("bert-large");
  const auto outcome = api::train_algorithms(train);
  REQUIRE(outcome.runs.size() == 2);
  REQUIRE(outcome.runs[1].time_curve.has_value());
  CHECK(outcome.runs[1].time_curve->back().first > 0);
  // convergence evidence may hold it, against its family's baseline (and only that)
  auto evidence = [](const std::string& baseline) {
    return test::write_temp_file("toy-evidence-" + baseline + ".json", R"({"rows": [
      {"algorithm": "toy-share", "family": "f", "baseline": ")" + baseline + R"(", "proxy": "mlp",
       "regime": "pre-training", "threshold": 0.03, "seeds": [1], "final_loss": [1], "baseline_final_loss": [1],
       "converges": "yes", "steps_ratio": 1, "command": "c"}]})");
  };
  CHECK(api::load_convergence_evidence(evidence("adam")).size() == 1);
  CHECK(error_of([&] { api::load_convergence_evidence(evidence("lamb")); })
            .find("/rows/0/baseline: is 'lamb', but toy-share is compared against 'adam'") != std::string::npos);
  // advise ranks it beside adam: at toy_share = 1 it runs at adam's rate, a speed-up of exactly 1
  api::AdviseRequest advise;
  advise.topology      = "a100x8-ib100";
  advise.workload      = "bert-large";
  advise.shape.gpus    = 16;
  advise.algorithms    = {"adam", kToyName};
  advise.evidence_file = evidence("adam");
  const auto report    = api::advise(advise);
  CHECK(report.baseline == "adam");
  const auto row = std::find_if(report.ranking.begin(), report.ranking.end(),
                                [](const auto& r) { return r.algorithm == kToyName; });
  REQUIRE(row != report.ranking.end());
  CHECK(row->speedup == 1.0);
}
