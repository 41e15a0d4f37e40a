#pragma once
// The per-operator compute model: the kernels of sim/compute/TransformerOps.hpp priced on a GPU (sim/compute/
// KernelCost.hpp), summed per pass, and a pipeline stage's work per micro-batch. This is the API a schedule asks what
// one micro-batch costs: model_compute(architecture, split, pp, gpu) gives each kernel's forward, backward and
// recomputation time for one layer, the embedding and the output layer, and the stage that sets the pipeline's pace.

#include "sim/compute/TransformerOps.hpp"
#include "sim/platform/Topology.hpp"

#include <vector>

namespace ccsim::sim {

struct PricedOp {
  OpSpec op;
  KernelCost cost;
};

/// Kernels with their times, and the totals per pass (seconds and FLOPs).
struct BlockCost {
  std::vector<PricedOp> ops;
  double forward_s = 0, backward_s = 0, recompute_s = 0;
  double forward_flops = 0, backward_flops = 0, recompute_flops = 0;
};

/// Prices every op on `gpu`, which must have a compute block that runs each op's format.
BlockCost price_ops(const std::vector<OpSpec>& ops, const GpuSpec& gpu);

/// Layers per pipeline stage: as even as possible, and where the layers do not divide, the first and the last stage
/// hold one fewer, since they also run the embedding and the output layer (the Llama 3 paper §3.3.2 removes one layer
/// from each; BLOOM's Megatron-DeepSpeed partition counts the embeddings as layers). With a single lighter stage it
/// is the last. Every stage holds at least one layer when layers >= pp.
std::vector<int> stage_layers(int layers, int pp);

/// Whether `pp` stages of `vpp` model chunks each (interleaved 1F1B) cut the layers into whole, equal chunks, as
/// stage_layers splits them: where the layers divide the stages, they divide pp x vpp; where they do not, with
/// `embedding_slots`, layers + 2 divide pp x vpp, the embedding and the output layer each taking one layer's slot on
/// the first and the last stage. The Llama 3 paper §3.3.2: "we reduce
/// one Transformer layer each from the first and the last stages ... the first model chunk on the first stage has only
/// the embedding", so 405B's 126 layers + 2 = 128 = 16 stages x 8 chunks of one slot (Megatron-Core's
/// account_for_embedding_in_pipeline_split and account_for_loss_in_pipeline_split lay it out the same way).
bool chunks_are_whole(int layers, int pp, int vpp, bool embedding_slots);

/// One stage's work per micro-batch.
struct StageCost {
  int stage  = 0;
  int layers = 0;
  double forward_s = 0, backward_s = 0, recompute_s = 0;
  double total_s() const { return forward_s + backward_s + recompute_s; }
};

/// One micro-batch through the whole model split over `pp` stages.
struct ModelCompute {
  BlockCost layer, embedding, output;
  std::vector<int> layers_per_stage;
  StageCost slowest; // the stage with the most work: it paces every other in a pipeline
};

ModelCompute model_compute(const TransformerArchitecture& arch, const ComputeSplit& split, int pp, const GpuSpec& gpu);

} // namespace ccsim::sim
