#pragma once
// Imperfect clusters (issue 16): ranks that compute slower than the rest, fixed (a throttled GPU, an older node:
// `--slow-gpu RANK:FACTOR`, a topology's `nodes.<id>.compute_scale`) or random (every step, every rank's compute time
// multiplied by a lognormal draw of mean 1 and a given coefficient of variation, seeded).
//
// Synchronous data parallelism waits for the slowest rank: a step's compute phase ends when the last rank's does,
// so the step's compute time is the nominal one times E[max_r draw_r / scale_r], and rank r idles for the rest. The
// expectation is taken over `steps` sampled steps, deterministic for a seed.
//
// A GPU that is slow for good (a throttled GPU, an older node) runs everything slower, its compression kernels and its
// optimizer step too: each of them sits between two synchronisation points (a collective, the next step's first one),
// so they last as long as on the slowest fixed GPU. The random noise models compute jitter only (issue 16's "each
// rank's compute time"), so it leaves kernels and the optimizer alone.
//
// A pipeline's stages are not synchronous ranks: each runs at its own GPU's speed (inverse_scale) and the schedule
// decides who waits; the noise there stretches every stage by noise_factor, E[max_r draw_r].

#include <cstdint>
#include <map>
#include <vector>

namespace ccsim::sim {

struct StragglerModel {
  std::map<int, double> rank_scale; // compute speed of a rank, 1 = nominal (0.5 = half speed); others are 1
  double cv = 0;                    // coefficient of variation of each rank's per-step compute time (lognormal)
  std::uint64_t seed = 1;
  int steps = 1000;                 // steps sampled for the random model's expectation

  bool active() const { return cv > 0 || !rank_scale.empty(); }
};

struct StragglerEffect {
  double compute_factor = 1;        // the step's compute time over the nominal one: E[max_r time_r / nominal]
  std::vector<double> idle_factor;  // per rank: E[max - time_r] / nominal
  double mean_idle_factor = 0;      // the average rank's idle share
  double kernel_factor = 1;         // kernels and optimizer: the slowest fixed rank's time over nominal, max_r 1/scale_r
  std::vector<double> kernel_idle_factor; // per rank: kernel_factor - 1/scale_r (its wait per nominal kernel second)
  double mean_kernel_idle_factor = 0;
  std::vector<double> inverse_scale; // per rank: 1/scale_r, its fixed slowness (1 = nominal)
  double noise_factor = 1;          // the noise alone: E[max_r draw_r] (1 without noise)
};

/// The effect of `model` on `ranks` synchronous ranks.
StragglerEffect straggler_effect(const StragglerModel& model, int ranks);

} // namespace ccsim::sim
