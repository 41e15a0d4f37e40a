#pragma once
// GPipe over slow links: fp32 activations, DirectQ and AQ-SGD (PipelinePlan; the pipeline training loop of
// algorithms/PipelineTraining.cpp).

#include "algorithms/AlgorithmDescriptor.hpp"

namespace ccsim::algorithms {

AlgorithmDescriptor fp32_pipeline();
AlgorithmDescriptor directq();
AlgorithmDescriptor aq_sgd();

} // namespace ccsim::algorithms
