// The training loop's contract: deterministic per seed, bytes from the packed buffers, bad sizes rejected. The papers'
// convergence claims themselves are tests/cli/ConvergenceClaims_test.cpp, over the seeds of the committed evidence.
#include "algorithms/Training.hpp"

#include <catch2/catch.hpp>

using ccsim::algorithms::train;
using ccsim::algorithms::TrainConfig;

TEST_CASE("Training: runs are deterministic per seed and bytes come from the packed buffers", "[algorithms]")
{
  TrainConfig c;
  c.algorithm = "onebit-adam";
  c.steps     = 40;
  c.workers   = 4;
  const auto a = train(c), b = train(c);
  CHECK(a.final_loss == b.final_loss);
  // 6 warm-up steps (15% of 40) of fp32 ring allreduce + 34 compressed steps of the 1-bit layout.
  const std::size_t n = 32 * 64 + 64 + 64 * 10 + 10;
  const auto expected = 6 * ccsim::numerics::ring_allreduce_bytes(n, 4) +
                        34 * ccsim::numerics::OnebitLayout(n, 4).wire_bytes_per_worker();
  CHECK(a.bytes_per_worker == expected);
}

TEST_CASE("Training: an unknown model or an impossible batch is rejected", "[algorithms]")
{
  TrainConfig c;
  c.model = "resnet";
  CHECK_THROWS_AS(train(c), std::invalid_argument);
  c.model        = "mlp";
  c.global_batch = 100; // not a multiple of 16 workers
  CHECK_THROWS_AS(train(c), std::invalid_argument);
}
