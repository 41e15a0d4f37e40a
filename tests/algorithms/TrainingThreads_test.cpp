// `ccsim train` is deterministic per seed on any machine: the proxies' gradients run on numerics::parallel_for, whose
// fixed per-item work and fixed summation order must give the same bits on 1 thread as on several.
#include "algorithms/Training.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>

using ccsim::algorithms::train;
using ccsim::algorithms::TrainConfig;
using ccsim::algorithms::TrainResult;

namespace {
TrainResult run_with_threads(const TrainConfig& c, const char* threads)
{
  setenv("CCSIM_THREADS", threads, 1);
  TrainResult r = train(c);
  unsetenv("CCSIM_THREADS");
  return r;
}
} // namespace

TEST_CASE("Training: the tiny transformer's loss curve does not depend on the thread count", "[algorithms]")
{
  // Data-parallel (workers in parallel), sharded (the same) and pipelined (examples in parallel, weight gradients
  // summed over 8 fixed chunks) runs, a few steps each.
  for (const char* algorithm : {"adam", "sdp4bit", "fp32-pipeline"}) {
    INFO(algorithm);
    TrainConfig c;
    c.algorithm    = algorithm;
    c.model        = "tiny-transformer";
    c.workers      = 4;
    c.steps        = 3;
    c.global_batch = 12;
    c.eval_every   = 1;
    if (c.algorithm == "fp32-pipeline")
      c.hyper = {{"pp", 4}, {"train_examples", 48}};
    if (c.algorithm == "sdp4bit")
      c.hyper = {{"gpus_per_node", 2}};
    const TrainResult one = run_with_threads(c, "1"), three = run_with_threads(c, "3");
    REQUIRE(one.loss_curve.size() == 4);
    CHECK(one.loss_curve == three.loss_curve); // exactly: same operations in the same order
  }
}
