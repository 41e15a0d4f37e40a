// A training stack other than Megatron-LM (workload defaults.framework) runs a micro-batch's kernels at its share of
// the rate the per-operator constants give Megatron-LM (gpu.compute.framework_efficiency): every compute time is the
// reference's divided by that share, and the inputs that name a stack are checked where they are read (their
// mutations: tests/cli/InputMutation_test.cpp, "the large-scale workloads and cluster").
#include "sim/compute/CostModel.hpp"
#include "sim/model/Workload.hpp"
#include "sim/platform/Topology.hpp"
#include "io/JsonInput.hpp"
#include "io/Presets.hpp"
#include "tests/support/InputErrors.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

using ccsim::test::message_of;
using namespace ccsim::sim;

namespace {
const std::string NO_ERROR = "(no InputError)"; // what message_of gives when the call throws none

nlohmann::json read_json(const std::string& path)
{
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

std::string data_file(const std::string& relative)
{
  return (std::filesystem::path(ccsim::io::data_dir()) / relative).string();
}

/// BLOOM-176B's stage as it ran (tp 4, pp 12, micro-batch 2, full recomputation).
StepShape bloom_shape(const Workload& w)
{
  StepShape s;
  s.params = w.params;
  s.tp = 4, s.pp = 12, s.dp = 8, s.gpus = 384, s.gpus_per_node = 8, s.nodes = 48;
  s.micro_batch = 2, s.global_batch = 2048, s.grad_accumulation = 128;
  s.seq_len = w.seq_len, s.hidden = w.hidden, s.layers = w.layers;
  s.recompute = Recompute::FULL;
  return s;
}
} // namespace

TEST_CASE("FrameworkEfficiency: every compute time is Megatron-LM's divided by the stack's share", "[sim]")
{
  auto topo_doc = read_json(data_file("topologies/a100x8-ib200x8.json"));
  topo_doc["gpu"]["compute"]["framework_efficiency"]["megatron-deepspeed"] = 0.625; // a binary fraction: 1/0.625 = 1.6
  const Topology topo = topology_from_json(topo_doc, "selene.json");
  auto work_doc       = read_json(data_file("experiments/large-scale/bloom-176b.json"));
  REQUIRE(work_doc["defaults"]["framework"] == "megatron-deepspeed");
  const Workload stack = workload_from_json(work_doc, "bloom.json");
  work_doc["defaults"]["framework"] = "megatron-lm";
  const Workload reference = workload_from_json(work_doc, "bloom-megatron.json");

  const ComputeTimes slow = compute_times(topo, stack, bloom_shape(stack));
  const ComputeTimes ref  = compute_times(topo, reference, bloom_shape(reference));
  REQUIRE(ref.forward_s > 0);
  CHECK(slow.forward_s == Approx(ref.forward_s * 1.6).epsilon(1e-12));
  CHECK(slow.backward_s == Approx(ref.backward_s * 1.6).epsilon(1e-12));
  CHECK(slow.recompute_s == Approx(ref.recompute_s * 1.6).epsilon(1e-12));
  CHECK(ref.recompute_s > 0); // full recomputation
  CHECK(slow.attention_forward_s == Approx(ref.attention_forward_s * 1.6).epsilon(1e-12));
  CHECK(slow.source.find("0.625 of the rate for megatron-deepspeed") != std::string::npos);
  CHECK(ref.source.find("framework_efficiency") == std::string::npos);
  // The breakdown stays the kernels as the constants price them.
  REQUIRE(slow.operators);
  REQUIRE(ref.operators);
  CHECK(slow.operators->slowest.forward_s == ref.operators->slowest.forward_s);

  SECTION("a sustained rate is taken as measured on the run's own stack")
  {
    topo_doc["gpu"]["sustained_tflops"] = 120;
    const Topology sustained = topology_from_json(topo_doc, "sustained.json");
    CHECK(compute_times(sustained, stack, bloom_shape(stack)).forward_s ==
          compute_times(sustained, reference, bloom_shape(reference)).forward_s);
  }
}

TEST_CASE("FrameworkEfficiency: a GPU without the stack's share is one line naming the topology file and key", "[sim]")
{
  const Topology h100 = load_topology(data_file("topologies/h100x8-ib400x8.json"));
  const Workload bloom = load_workload(data_file("experiments/large-scale/bloom-176b.json"));
  const std::string msg = message_of([&] { (void)compute_times(h100, bloom, bloom_shape(bloom)); });
  CHECK(msg.find("h100x8-ib400x8.json: /gpu/compute/framework_efficiency: has no entry for megatron-deepspeed") !=
        std::string::npos);
  CHECK(msg.find('\n') == std::string::npos);
}

TEST_CASE("FrameworkEfficiency: the readers refuse what names no stack or no share", "[sim]")
{
  const auto topo_doc = read_json(data_file("topologies/a100x8-ib200x8.json"));
  const auto topo_with = [&](const nlohmann::json& block) {
    auto d                                    = topo_doc;
    d["gpu"]["compute"]["framework_efficiency"] = block;
    return message_of([&] { (void)topology_from_json(d, "t.json"); });
  };
  CHECK(topo_with({{"megatron-deepspeed", 0.7}}) == NO_ERROR);
  CHECK(topo_with({{"megatron-lm", 1.0}}).find("/gpu/compute/framework_efficiency/megatron-lm: is the stack") !=
        std::string::npos);
  CHECK(topo_with({{"deepspeed-zero", 0.7}}).find("/gpu/compute/framework_efficiency/deepspeed-zero: not a training "
                                                  "stack ccsim knows") != std::string::npos);
  CHECK(topo_with({{"megatron-deepspeed", 0.2}}).find("/gpu/compute/framework_efficiency/megatron-deepspeed") !=
        std::string::npos);
  CHECK(topo_with({{"megatron-deepspeed", 4.5}}) != NO_ERROR);
  CHECK(topo_with({{"megatron-deepspeed", "fast"}}) != NO_ERROR);
  CHECK(topo_with(0.7) != NO_ERROR);

  const auto work_doc = read_json(data_file("experiments/large-scale/gpt-530b-mtnlg.json"));
  auto unknown                   = work_doc;
  unknown["defaults"]["framework"] = "deepspeed";
  CHECK(message_of([&] { (void)workload_from_json(unknown, "w.json"); }).find("w.json: /defaults/framework") !=
        std::string::npos);
  auto overlap                          = work_doc;
  overlap["defaults"]["sequence_parallel"] = true;
  overlap["defaults"]["tp_overlap"]        = true;
  CHECK(message_of([&] { (void)workload_from_json(overlap, "w.json"); })
            .find("/defaults/tp_overlap: is Megatron-Core's --tp-comm-overlap, which megatron-deepspeed does not run") !=
        std::string::npos);
  auto absent = work_doc;
  absent["defaults"].erase("framework");
  CHECK(workload_from_json(absent, "w.json").framework == "megatron-lm");
}
