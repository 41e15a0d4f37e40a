#pragma once
// Learning-rate schedules of the papers' BERT pre-training runs, as a factor on --param lr for step t of T (1-based):
//   constant — 1 (ccsim's default, the proxies' earlier runs);
//   bert     — 1-bit Adam §7.1: "the learning rate linearly increases to 4e-4 as a warmup in the first 12.5K steps,
//              then decays into 0.99 of the original after every 520 steps", of BERT-Large's 152K seqlen-128 steps
//              (Table 2): a linear warm-up over 12.5/152 of the run, then x0.99 per 520/152000 of it (continuous);
//   linear   — LAMB's, as 1-bit LAMB appendix A.1 uses it ("linear LR warmup and decay", 10 % LR warmup): linear
//              warm-up over the first 10 %, then linear decay to 0 at the last step.
// The schedule is the same for a compressed algorithm and its baseline (the papers change only the optimizer).

#include <string>
#include <vector>

namespace ccsim::algorithms {

enum class LrSchedule { CONSTANT = 0, BERT = 1, LINEAR = 2 };

/// The words `--param lr_schedule` takes, in enum order.
const std::vector<std::string>& lr_schedule_names();

/// The factor on the peak learning rate at step `step` (1..steps).
double lr_scale(LrSchedule schedule, int step, int steps);

} // namespace ccsim::algorithms
