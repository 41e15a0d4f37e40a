// OnebitLayout: DeepSpeed's padding and the message sizes the simulator uses.
#include "numerics/OnebitLayout.hpp"

#include <catch2/catch.hpp>

#include <numeric>

using namespace ccsim::numerics;

TEST_CASE("OnebitLayout: padded length is the next multiple of W·lcm(W / 8) for W = 1..8", "[numerics]")
{
  // fp16/onebit/adam.py l.110: divider = W·lcm(W, 8). Closed form per W: 1->8, 2->16, 3->72, 4->32, 5->200,
  // 6->144, 7->392, 8->64; numel 1000 rounds up to the next multiple.
  const std::size_t unit[] = {0, 8, 16, 72, 32, 200, 144, 392, 64};
  for (std::size_t w = 1; w <= 8; ++w) {
    const OnebitLayout l(1000, w);
    INFO("W = " << w);
    CHECK(l.padded_numel() == (1000 + unit[w] - 1) / unit[w] * unit[w]);
    CHECK(l.padded_numel() % (8 * w) == 0); // whole bytes per server chunk
  }
  CHECK(OnebitLayout(1000, 3).padded_numel() == 1008); // 14 · 72
  CHECK(OnebitLayout(64, 8).padded_numel() == 64);     // already aligned: no padding
}

TEST_CASE("OnebitLayout: worker / server and input bytes as nccl.py puts them on the wire", "[numerics]")
{
  // W = 4, numel 1000 -> padded 1024 (unit 32). Phase 1: 1024/8 = 128 sign bytes + one fp32 scale = 132.
  // Phase 2: the server chunk 256 values = 32 bytes + one fp32 scale = 36. Input: 1024 fp32 = 4096 bytes.
  const OnebitLayout l(1000, 4);
  CHECK(l.worker_bytes() == 132);
  CHECK(l.server_bytes() == 36);
  CHECK(l.input_bytes() == 4096);
  // W = 3, numel 100 -> 144: phase 1 18 + 4, phase 2 144/3/8 = 6 + 4.
  const OnebitLayout m(100, 3);
  CHECK(m.worker_bytes() == 22);
  CHECK(m.server_bytes() == 10);
}
