// The registry of algorithm descriptors: a name it does not hold is an error everywhere (no part of ccsim quietly
// counts nothing for it), a descriptor that contradicts itself or the others is refused, and a key simulate and train
// both take is one declaration.
#include "algorithms/MemoryFootprint.hpp"
#include "algorithms/OptimizerFactory.hpp"
#include "algorithms/PaperDefaults.hpp"
#include "algorithms/Registry.hpp"
#include "algorithms/TrainParams.hpp"
#include "algorithms/Training.hpp"
#include "algorithms/dense/DensePlan.hpp"
#include "algorithms/sharded/ShardedPlan.hpp"
#include "io/JsonInput.hpp"

#include <catch2/catch.hpp>

#include <stdexcept>

using namespace ccsim;
using algorithms::AlgorithmDescriptor;

namespace {
std::string invalid_argument_of(const std::function<void()>& f)
{
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

/// A consistent descriptor of a new data-parallel algorithm, which each check below breaks in one way.
AlgorithmDescriptor fresh(const std::string& name)
{
  AlgorithmDescriptor d;
  d.name         = name;
  d.plan         = std::make_shared<algorithms::DensePlan>(name, "adam");
  d.train_params = {algorithms::train_keys::lr()};
  d.baseline     = "adam";
  return d;
}
} // namespace

TEST_CASE("Registry: a name no algorithm has is an error everywhere", "[algorithms]")
{
  const std::string name = "adamm";
  CHECK(algorithms::find_algorithm(name) == nullptr);
  CHECK(algorithms::find_plan_algorithm(name) == nullptr);
  CHECK(invalid_argument_of([&] { algorithms::algorithm_named(name); })
            .find("unknown algorithm 'adamm' (known: sgd, adam,") == 0);
  CHECK(invalid_argument_of([&] { algorithms::trainable_algorithm(name); })
            .find("no numeric update for 'adamm' (trainable: sgd, adam, lamb, onebit-adam,") == 0);
  // The memory of a plan no algorithm registered: once silently no extra buffers, now an error.
  const auto work = sim::load_workload(io::resolve_preset("workloads", "bert-large", "--workload"));
  sim::StepShape shape;
  shape.dp = shape.gpus = 8, shape.tp = shape.pp = shape.ep = 1;
  shape.micro_batch = shape.grad_accumulation = 1;
  const algorithms::DensePlan stray(name, "adam");
  CHECK(invalid_argument_of([&] { algorithms::memory_footprint(stray, work, shape); }).find("unknown algorithm") == 0);
  // The papers' defaults, the optimizer factory and the training loop.
  CHECK_THROWS_AS(algorithms::algorithm_defaults(name, 100, {}), std::invalid_argument);
  CHECK_THROWS_AS(algorithms::claim_defaults({"adam", name}, "mlp", {}), std::invalid_argument);
  CHECK_THROWS_AS(algorithms::make_distributed_optimizer(name, {{"all", 0, 4}}, 2, {}), std::invalid_argument);
  algorithms::TrainConfig config;
  config.algorithm = name;
  CHECK(invalid_argument_of([&] { algorithms::train(config); }).find("no numeric update for 'adamm'") == 0);
  // Train parameters: none applies, and a key for it is refused naming no accepted one.
  CHECK_FALSE(algorithms::train_param_applies(*algorithms::find_train_param("lr"), name));
  CHECK_THROWS_WITH(algorithms::check_train_params(name, {{"lr", 0.1}}, 4), Catch::Contains("(accepted: none)"));
}

TEST_CASE("Registry: a descriptor that contradicts itself or the others is refused", "[algorithms]")
{
  const auto before = algorithms::registered_algorithms().size();
  auto refused      = [](AlgorithmDescriptor d, const std::string& why) {
    INFO(why);
    CHECK_THROWS_WITH(algorithms::register_algorithm(std::move(d)), Catch::Contains(why));
  };
  refused(fresh("adam"), "registered twice");
  refused(fresh(""), "has no name");
  auto renamed = fresh("x1");
  renamed.plan = std::make_shared<algorithms::DensePlan>("x2", "adam");
  refused(renamed, "its plan calls itself 'x2'");
  auto layout = fresh("x1");
  layout.plan = std::make_shared<algorithms::ShardedPlan>("x1", algorithms::WeightComm::BF16,
                                                          algorithms::GradComm::FP32_REDUCE_SCATTER);
  refused(layout, "lays the model out differently");
  auto two_updates       = fresh("x1");
  two_updates.optimizer  = algorithms::find_algorithm("adam")->optimizer;
  two_updates.train_loop = [](const algorithms::TrainConfig&) { return algorithms::TrainResult{}; };
  refused(two_updates, "both an optimizer and a training loop");
  auto twice = fresh("x1");
  twice.train_params.push_back(algorithms::train_keys::lr());
  refused(twice, "declares train key 'lr' twice");
  // One meaning per key: an lr up to 100 is not the lr every other update reads (up to 10).
  auto other_lr = fresh("x1");
  other_lr.train_params = {{"lr", 0, "learning rate", {0, 100, true}}};
  refused(other_lr, "declares train key 'lr' differently from 'sgd'");
  auto orphan     = fresh("x1");
  orphan.baseline = "x0";
  refused(orphan, "its baseline 'x0' is not registered");
  auto second_reference                     = fresh("x1");
  second_reference.reference_for_parallelism = true;
  refused(second_reference, "'adam' is already advise's reference");
  CHECK(algorithms::registered_algorithms().size() == before); // none of them went in
}

TEST_CASE("Registry: SLAMB's k and H are one declaration for simulate and train", "[algorithms]")
{
  // SLAMB §5.1 runs k = 0.1 and H = 100; simulate's plan and train's update take them under one key each, with the
  // same range, doc and default.
  const auto& slamb = algorithms::algorithm_named("slamb");
  for (const auto& [key, default_value] : std::vector<std::pair<std::string, double>>{{"k", 0.1}, {"H", 100}}) {
    INFO(key);
    const auto* trained = slamb.train_param(key);
    REQUIRE(trained != nullptr);
    const auto simulated = slamb.simulate_params();
    const auto it = std::find_if(simulated.begin(), simulated.end(), [&](const auto& p) { return p.key == key; });
    REQUIRE(it != simulated.end());
    CHECK(algorithms::same_declaration(*trained, *it));
    CHECK(trained->default_value == default_value);
    CHECK(it->default_value == default_value);
  }
}

TEST_CASE("Registry: advise's baselines are the descriptors' references", "[algorithms]")
{
  // BERT-style data parallelism against Adam (1-bit Adam §7), Megatron's GPT runs against its distributed optimizer
  // (SDP4Bit §5), AQ-SGD's pipelines against fp32 activations.
  CHECK(algorithms::reference_algorithm(algorithms::Parallelism::DATA_PARALLEL).name == "adam");
  CHECK(algorithms::reference_algorithm(algorithms::Parallelism::SHARDED_DATA_PARALLEL).name == "megatron-dp");
  CHECK(algorithms::reference_algorithm(algorithms::Parallelism::PIPELINE).name == "fp32-pipeline");
  // Every algorithm is compared within its own layout: its baseline lays the model out as it does.
  for (const auto* a : algorithms::registered_algorithms()) {
    INFO(a->name);
    CHECK(algorithms::algorithm_named(a->baseline).parallelism == a->parallelism);
  }
}
