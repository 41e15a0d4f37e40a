#pragma once
// The communication of model parallelism inside one data-parallel replica, added to every phase of a non-pipeline
// algorithm: tensor-parallel all-reduces, pipeline-stage transfers and a mixture's expert-parallel all-to-alls.

#include "sim/model/CommPlan.hpp"

namespace ccsim::algorithms {

/// Adds the step's model-parallel communication to `phase`:
/// - Megatron tensor parallelism: 2 all-reduces of the layer's activations forward and 2 backward per layer
///   (Shoeybi et al. 2019, §3), bf16, for every micro-batch of the step.
/// - Pipeline parallelism (pp > 1): the step's micro-batches flow through the pp stages, each boundary carrying one
///   micro-batch's bf16 activations forward and their gradients backward. The engine runs it as GPipe; Megatron's
///   1F1B schedule has the same bubble, (pp - 1)(f + b) per step (Narayanan et al. 2021, §2.2), and only holds fewer
///   activations. The data-parallel ops follow the flush.
/// - Expert parallelism (ep > 1, a mixture of experts): per MoE layer and micro-batch, dispatch and combine forward
///   and their gradients backward, 4 all-to-alls among the ep ranks.
/// - Context parallelism (cp > 1, an architecture only): ring attention's K,V exchange in every layer
///   (sim::RingAttention, one CommOp the engine runs beside the attention), and every other message at seq_len / cp
///   tokens per rank.
/// A workload described by its architecture takes every size from sim/model/TransformerArchitecture.hpp; the papers'
/// workloads keep the GPT closed forms (4·layers/pp·b·s·h·2 and b·s·h·2 bytes).
void add_model_parallel_work(sim::PhasePlan& phase, const sim::StepShape& shape);

} // namespace ccsim::algorithms
