#pragma once
// DeepSpeed's momentum mask for 1-bit Adam / 1-bit LAMB (`exp_avg_mask`, onebit/adam.py l.217–227, lamb.py after the
// un-scaling of the momentum): after the compressed all-reduce the momentum is multiplied by a 0/1 mask, so the
// coordinates whose gradient is always zero keep a zero momentum and are never moved by the compression's error.
// 1-bit compression cannot send a zero: every coordinate of a chunk gets +-scale, and a coordinate whose frozen
// variance is 0 then moves by scale / eps (notes §2.4: BERT's unused position embeddings; in the tiny transformer the
// key biases, whose gradient is 0 because softmax ignores a shift, and the embedding rows of unused characters).
//
// DeepSpeed asks the user for the mask. `auto` derives it from the warm-up instead: a coordinate is masked when its
// frozen variance is exactly 0, i.e. when its averaged gradient was exactly 0 at every warm-up step (v accumulates
// (1 - b2) g^2, which is positive once any g is non-zero and larger than ~1e-22). A gradient that only later becomes
// non-zero stays masked: the frozen variance has nothing to scale it by either.

#include "numerics/OptimizerTypes.hpp"

#include <string>
#include <vector>

namespace ccsim::numerics {

enum class MomentumMask { NONE = 0, AUTO = 1 };

/// The words `--param momentum_mask` takes, in enum order: "none" (DeepSpeed's default: no mask), "auto".
const std::vector<std::string>& momentum_mask_names();

/// hyper["momentum_mask"] as the enum (NONE when absent).
MomentumMask momentum_mask_of(const Hyper& hyper);

/// 1 where the frozen variance is positive, 0 where it is exactly 0.
Vec momentum_mask_from_variance(const Vec& frozen_v);

} // namespace ccsim::numerics
