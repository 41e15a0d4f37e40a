// Descriptors of the pipelined algorithms: the plan and the training loop both take how activations cross the stages.
#include "algorithms/pipeline/PipelineAlgorithms.hpp"

#include "algorithms/TrainParams.hpp"
#include "algorithms/TrainingPaths.hpp"
#include "algorithms/pipeline/PipelinePlan.hpp"

namespace ccsim::algorithms {

namespace {
// The training loop's keys. fw_bits and bw_bits are not simulate's keys of the same name: the loop's quantizer packs
// at most 8 bits and trains at AQ-SGD's fw2/bw4 by default (algorithms/PipelineTraining.cpp), while the plan prices
// up to 16 bits at fw4/bw8 (PipelinePlan.cpp).
std::vector<ParamSpec> pipeline_keys()
{
  return {train_keys::lr(),
          train_keys::weight_decay(),
          {"pp", 0, "pipeline stages", {2, 16}, true},
          {"fw_bits", 0, "bits per forward activation value", {1, 8}, true},
          {"bw_bits", 0, "bits per backward gradient value", {1, 8}, true},
          {"train_examples", 0, "fixed training examples (0 = the model's default)", {0, 16384}, true}};
}

AlgorithmDescriptor pipeline(std::string name, ActivationComm comm, std::string description)
{
  AlgorithmDescriptor d;
  d.name         = std::move(name);
  d.description  = std::move(description);
  d.parallelism  = Parallelism::PIPELINE; // GPipe without ZeRO: no stages
  d.plan         = std::make_shared<PipelinePlan>(d.name, comm);
  d.train_loop   = [comm](const TrainConfig& c) { return train_pipeline(c, comm); };
  d.train_params = pipeline_keys();
  d.family       = "pipeline parallel";
  d.baseline     = "fp32-pipeline";
  return d;
}
} // namespace

AlgorithmDescriptor fp32_pipeline()
{
  AlgorithmDescriptor d = pipeline("fp32-pipeline", ActivationComm::FP32, "GPipe with fp32 activations and gradients");
  // AQ-SGD's runs (gpt2-xl, deberta-v2-xxl) pipeline without tensor parallelism, against fp32 activations.
  d.reference_for_parallelism = true;
  return d;
}

AlgorithmDescriptor directq()
{
  return pipeline("directq", ActivationComm::DIRECT_QUANT,
                  "GPipe with directly quantized activations (AQ-SGD's DirectQ)");
}

AlgorithmDescriptor aq_sgd()
{
  // Its buffers m(ξ) hold an activation per training example at every cut, offloaded to host memory or SSD (AQ-SGD
  // appendix G, "Additional Storage": 172 GB per machine in its largest run), so no GPU memory is counted for them.
  return pipeline("aq-sgd", ActivationComm::DELTA_QUANT,
                  "AQ-SGD: quantized activation changes with per-example buffers");
}

} // namespace ccsim::algorithms
