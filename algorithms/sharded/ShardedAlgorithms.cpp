// Descriptors of the sharded algorithms. Each is a pair (how the weights are gathered, how the gradients are reduced),
// and the plan and the training loop both take that pair, so what is simulated is what is trained.
#include "algorithms/sharded/ShardedAlgorithms.hpp"

#include "algorithms/TrainParams.hpp"
#include "algorithms/TrainingPaths.hpp"
#include "algorithms/sharded/ShardedPlan.hpp"

namespace ccsim::algorithms {

namespace {
ParamSpec gpus_per_node()
{
  return {"gpus_per_node", 0, "workers per node (two-level gradients); must divide --workers", {1, 1024}, true};
}

AlgorithmDescriptor sharded(std::string name, WeightComm weights, GradComm grads, std::string description)
{
  AlgorithmDescriptor d;
  d.name         = std::move(name);
  d.description  = std::move(description);
  d.parallelism  = Parallelism::SHARDED_DATA_PARALLEL;
  // 1: Megatron's distributed optimizer (fp32 gradient buffer whole, state sharded), what these ran before issue 41;
  // 2: gradients sharded too; 3: weights too (ZeRO-3 / FSDP), except for qWD (below).
  d.zero_stages  = {1, 2, 3};
  // Context parallelism: ShardedPlan shards and reduces over the dp x cp gradient group (Megatron's distributed
  // optimizer uses the data-parallel group with context parallelism).
  d.context_parallel = true;
  d.plan         = std::make_shared<ShardedPlan>(d.name, weights, grads);
  d.train_loop   = [weights, grads](const TrainConfig& c) { return train_sharded(c, weights, grads); };
  d.train_params = {train_keys::lr(), train_keys::weight_decay(), gpus_per_node()};
  // qWD sends weight differences: the owner keeps its shard of the previous fp32 weights (SDP4Bit §4.1).
  // qWD cannot run at stage 3: its receivers add the difference to the previous model, which ZeRO-3 frees (SDP4Bit
  // §2: "ZeRO-3 and FSDP release the collected weights after each computation").
  if (weights == WeightComm::QWD_INT4) {
    d.memory      = {0, 1, 0};
    d.zero_stages = {1, 2};
  }
  // hpZ's secondary partition: a bf16 copy of the model slice over the node's data-parallel ranks (ZeRO++ §3.2),
  // half an fp32 copy.
  if (weights == WeightComm::QWZ_INT8)
    d.memory.per_node_at_stage3 = 0.5;
  d.family   = "sharded data parallel";
  d.baseline = "megatron-dp";
  return d;
}
} // namespace

AlgorithmDescriptor megatron_dp()
{
  AlgorithmDescriptor d = sharded("megatron-dp", WeightComm::BF16, GradComm::FP32_REDUCE_SCATTER,
                                  "sharded DP baseline: bf16 weight all-gather, fp32 gradient reduce-scatter");
  // Megatron's GPT runs (SDP4Bit §5) train sharded, against its distributed optimizer.
  d.reference_for_parallelism = true;
  return d;
}

AlgorithmDescriptor sdp4bit()
{
  return sharded("sdp4bit", WeightComm::QWD_INT4, GradComm::TLQ_HS,
                 "SDP4Bit: 4-bit weight differences + two-level Hadamard-smoothed gradients");
}

AlgorithmDescriptor qwd()
{
  return sharded("qwd", WeightComm::QWD_INT4, GradComm::FP32_REDUCE_SCATTER,
                 "SDP4Bit part: 4-bit weight differences only");
}

AlgorithmDescriptor qw()
{
  return sharded("qw", WeightComm::QW_INT4, GradComm::FP32_REDUCE_SCATTER,
                 "baseline: plain 4-bit weights (ZeRO++-style qW at 4 bits)");
}

AlgorithmDescriptor tlq()
{
  return sharded("tlq", WeightComm::BF16, GradComm::TLQ, "SDP4Bit part: two-level 8/4-bit gradients without Hadamard");
}

AlgorithmDescriptor tlq_hs()
{
  return sharded("tlq-hs", WeightComm::BF16, GradComm::TLQ_HS,
                 "SDP4Bit part: two-level gradients with Hadamard smoothing");
}

AlgorithmDescriptor ulq()
{
  return sharded("ulq", WeightComm::BF16, GradComm::QGZ_INT4,
                 "SDP4Bit baseline ULq: ZeRO++ qgZ, 4-bit gradients in both all-to-all stages");
}

AlgorithmDescriptor zeropp()
{
  return sharded("zeropp", WeightComm::QWZ_INT8, GradComm::QGZ_INT4,
                 "ZeRO++: int8 weight all-gather (qwZ), 4-bit hierarchical gradients (qgZ)");
}

} // namespace ccsim::algorithms
