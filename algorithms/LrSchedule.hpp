#pragma once
// Learning-rate schedules of the papers' BERT pre-training runs, as a factor on --param lr for step t of T (1-based),
// each stretched to the run's length (a fraction of the paper's steps is that fraction of T):
//   constant    — 1 (the proxies' earlier runs);
//   bert        — 1-bit Adam §7.1: "the learning rate linearly increases to 4e-4 as a warmup in the first 12.5K steps,
//                 then decays into 0.99 of the original after every 520 steps", of BERT-Large's 152K seqlen-128 steps
//                 (Table 2): a linear warm-up over 12.5/152 of the run, then x0.99 per 520/152000 of it (continuous);
//   linear      — LAMB's, as 1-bit LAMB appendix A.1 uses it ("linear LR warmup and decay", 10 % LR warmup): linear
//                 warm-up over the first 10 %, then linear decay to 0 at the last step;
//   onebit-lamb — 1-bit LAMB §6.1 (BERT seqlen 128): "the learning rate starts from 1e-3, exponentially increases to
//                 12e-3 as a warmup in the first 450 steps, then decays into 0.9 of the original after every 250 steps.
//                 The total number of steps is 5993": from 1/12 of the peak, x12 over 450/5993 of the run
//                 (geometric), then x0.9 per 250/5993 of it (continuous, as bert);
//   slamb       — SLAMB appendix G.1 (BERT phase 1): "linear warm-up and polynomial decay (degree=0.5)", warm-up 2000
//                 of 7038 steps. Those are NVIDIA's BERT recipe's settings (DeepLearningExamples, LAMB at 64K:
//                 lr 6e-3, warmup_proportion 0.2843, 7038 steps), whose warmup_poly is x/w below the warm-up fraction
//                 w and (1 - x)^0.5 above it, x = t/T: the formula used here (the paper gives no formula).
// The schedule is the same for a compressed algorithm and its baseline (the papers change only the optimizer).

#include <string>
#include <vector>

namespace ccsim::algorithms {

enum class LrSchedule { CONSTANT = 0, BERT = 1, LINEAR = 2, ONEBIT_LAMB = 3, SLAMB = 4 };

/// The words `--param lr_schedule` takes, in enum order.
const std::vector<std::string>& lr_schedule_names();

/// The factor on the peak learning rate at step `step` (1..steps).
double lr_scale(LrSchedule schedule, int step, int steps);

} // namespace ccsim::algorithms
