#pragma once
// The papers' settings a training run takes where --param does not set them (issue 30: each claim run as its paper
// runs it), and the words that say so: `ccsim train` reports every default that ran, with its source.
//   claim_defaults     — one set for a whole comparison, from the claim its algorithms test: the paper's learning-rate
//                        schedule (algorithms/LrSchedule.hpp) runs for the baseline as for the compressed method,
//                        as the papers change only the optimizer; on char-gpt also the peak learning rate the
//                        convergence evidence ran at (issue 42: the claims' runs are `ccsim train`'s defaults), and
//                        for 1-bit Adam's claim the compressors' unit (compression_unit=tensor,
//                        numerics::CompressionUnit), which only the 1-bit methods read;
//   algorithm_defaults — per algorithm: the warm-up (freeze_step) at the paper's fraction of the steps.
// Which claim an algorithm belongs to and its warm-up are its descriptor's (AlgorithmDescriptor::claim, ::warmup).

#include "numerics/OptimizerTypes.hpp"

#include <string>
#include <vector>

namespace ccsim::algorithms {

struct DefaultParam {
  std::string key;
  double value = 0;
  std::string text;   // the value as --param takes it ("bert", "30")
  std::string source; // the paper and section it comes from
};

/// The claim a list of algorithms tests on `model`, and its paper's settings: SLAMB's when it holds an algorithm of
/// that claim (slamb), else 1-bit LAMB's (onebit-lamb, lamb-basic-1bit), else 1-bit Adam's (onebit-adam,
/// naive-1bit-adam; on char-gpt with compression_unit=tensor); on char-gpt each with its peak rate (lr 0.0003 for 1-bit
/// Adam's claim, 0.02 for the LAMB ones); none otherwise, and none on the mlp, whose claims hold
/// at a constant rate and whose Adam and LAMB end 9 % and 28 % higher at those schedules stretched to its 1000 steps
/// (README). Keys `given` already sets are left out. A name without an update throws std::invalid_argument
/// (algorithms::trainable_algorithm's message).
std::vector<DefaultParam> claim_defaults(const std::vector<std::string>& algorithms, const std::string& model,
                                         const numerics::Hyper& given);

/// What train() fills in for `algorithm` over `steps` steps where `given` does not set it (freeze_step). An unknown
/// name throws std::invalid_argument.
std::vector<DefaultParam> algorithm_defaults(const std::string& algorithm, int steps, const numerics::Hyper& given);

/// `given` with the defaults added.
numerics::Hyper with_defaults(numerics::Hyper given, const std::vector<DefaultParam>& defaults);

} // namespace ccsim::algorithms
