#pragma once
// Sharded data parallelism (Megatron's distributed optimizer / ZeRO): gradients are reduce-scattered, each
// rank updates its 1/dp shard, and the new weights are all-gathered. SDP4Bit compresses both directions:
// qWD (4-bit weight differences, §4.1) and TLq-HS (8-bit intra-node then 4-bit inter-node all-to-all of
// Hadamard-smoothed gradients, §4.2); ZeRO++ (qwZ + qgZ) and the plain variants are its comparisons.

#include "algorithms/PlanAlgorithm.hpp"

namespace ccsim::algorithms {

enum class WeightComm { BF16, QWD_INT4, QW_INT4, QWZ_INT8 };
enum class GradComm { FP32_REDUCE_SCATTER, TLQ, TLQ_HS, ULQ_INT4, QGZ_INT4 };

/// Reducing `n` gradient values of one model slice to this rank's shard: kernels and collectives, with
/// `dp_per_node` data-parallel peers per node and `grad_group` values per quantization scale.
std::vector<sim::Op> sharded_gradient_ops(GradComm grads, std::size_t n, std::uint64_t dp_per_node,
                                          std::size_t grad_group);
/// Gathering the updated `n` weights of one model slice from `dp` shards, `weight_group` values per scale.
std::vector<sim::Op> sharded_weight_ops(WeightComm weights, std::size_t n, std::uint64_t dp, std::size_t weight_group);

class ShardedPlan : public PlanAlgorithm {
public:
  ShardedPlan(std::string name, WeightComm weights, GradComm grads);
  std::string name() const override { return name_; }
  Parallelism parallelism() const override { return Parallelism::SHARDED_DATA_PARALLEL; }
  std::vector<ParamSpec> param_specs() const override;
  sim::StepPlan plan(const sim::StepShape& shape, const ParamValues& params) const override;

private:
  std::string name_;
  WeightComm weights_;
  GradComm grads_;
};

} // namespace ccsim::algorithms
