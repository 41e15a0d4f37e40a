#pragma once
// Sharded data parallelism: Megatron's distributed optimizer, SDP4Bit and its parts, ZeRO++ and the plain baselines
// (ShardedPlan; the sharded training loop of algorithms/ShardedTraining.cpp).

#include "algorithms/AlgorithmDescriptor.hpp"

namespace ccsim::algorithms {

AlgorithmDescriptor megatron_dp();
AlgorithmDescriptor sdp4bit();
AlgorithmDescriptor qwd();
AlgorithmDescriptor qw();
AlgorithmDescriptor tlq();
AlgorithmDescriptor tlq_hs();
AlgorithmDescriptor ulq();
AlgorithmDescriptor zeropp();

} // namespace ccsim::algorithms
