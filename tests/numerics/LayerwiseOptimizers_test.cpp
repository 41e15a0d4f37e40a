// 1-bit LAMB, SLAMB and the sparse LAMB baselines: reductions to LAMB and their synchronisation invariants.
#include "numerics/LayerwiseOptimizers.hpp"
#include "numerics/Sparsifiers.hpp"

#include <catch2/catch.hpp>

#include <random>

using namespace ccsim::numerics;

namespace {
std::vector<Vec> random_grads(std::size_t workers, std::size_t n, std::mt19937& rng)
{
  std::normal_distribution<float> d;
  std::vector<Vec> g(workers, Vec(static_cast<long>(n)));
  for (auto& v : g)
    for (long i = 0; i < v.size(); ++i)
      v[i] = d(rng);
  return g;
}
const TensorLayout LAYOUT = {{"a", 0, 6}, {"b", 6, 10}};
} // namespace

TEST_CASE("OnebitLamb: before its freeze step it is LAMB on the averaged gradient", "[numerics]")
{
  const Hyper h = {{"lr", 0.01}, {"eps", 1e-6}, {"freeze_step", 50}};
  auto onebit   = make_distributed_optimizer("onebit-lamb", LAYOUT, 4, h);
  auto lamb     = make_distributed_optimizer("lamb", LAYOUT, 4, h);
  std::vector<Vec> a(4, Vec::LinSpaced(16, -1, 1)), b = a;
  std::mt19937 rng(1);
  for (int s = 0; s < 10; ++s) {
    const auto g = random_grads(4, 16, rng);
    onebit->step(a, g);
    lamb->step(b, g);
  }
  for (long i = 0; i < 16; ++i)
    CHECK(a[0][i] == Approx(b[0][i]).epsilon(1e-6));
  CHECK(onebit->phase() == "warmup");
}

TEST_CASE("OnebitLamb: after the freeze the ratio stays in (r_min / r_max) and workers stay identical", "[numerics]")
{
  OnebitLamb opt(LAYOUT, 16, 4, {{"lr", 0.01}, {"freeze_step", 5}, {"r_min", 0.5}, {"r_max", 4.0}}, true);
  std::vector<Vec> x(4, Vec::LinSpaced(16, -1, 1));
  std::mt19937 rng(2);
  for (int s = 0; s < 30; ++s)
    opt.step(x, random_grads(4, 16, rng));
  CHECK(opt.phase() == "compressed");
  for (double r : opt.ratios()) {
    CHECK(r >= 0.5);
    CHECK(r <= 4.0);
  }
  for (double c : opt.c_avg())
    CHECK(c > 0);
  CHECK((x[0] - x[3]).norm() == 0);
}

TEST_CASE("Slamb: every H-th step the workers' models are averaged into one", "[numerics]")
{
  Slamb opt(LAYOUT, 16, 4, {{"lr", 0.01}, {"k", 0.25}, {"H", 5}});
  std::vector<Vec> x(4, Vec::LinSpaced(16, -1, 1));
  std::mt19937 rng(3);
  for (int s = 1; s <= 10; ++s) {
    opt.step(x, random_grads(4, 16, rng));
    const double spread = (x[0] - x[1]).norm();
    if (s % 5 == 0)
      CHECK(spread == 0);
    else
      CHECK(spread > 0); // local error compensation leaves the unsynchronised part local
  }
  // bytes: 10 steps of the masked allreduce of ceil(0.25·16) = 4 values, plus 2 full model averages
  CHECK(opt.bytes_sent_per_worker() == 10 * ring_allreduce_bytes(4, 4) + 2 * ring_allreduce_bytes(16, 4));
}

TEST_CASE("SparseLamb: random-k with error feedback sends ceil(k·n) values and keeps the rest as error", "[numerics]")
{
  SparseLamb opt(LAYOUT, 16, 2, {{"k", 0.5}}, /*top_k=*/false);
  std::vector<Vec> x(2, Vec::Zero(16));
  std::mt19937 rng(4);
  opt.step(x, random_grads(2, 16, rng));
  CHECK(opt.bytes_sent_per_worker() == ring_allreduce_bytes(8, 2));
  CHECK((x[0] - x[1]).norm() == 0); // the averaged sparse gradient is the same on every worker
}

TEST_CASE("Slamb: with k = 1 and H = 1 every coordinate is synchronised so workers never drift apart", "[numerics]")
{
  // Derivation: k = 1 makes the shared random-k mask cover all P coordinates (SLAMB Algorithm 1, line "mask of k·P"),
  // so the masked allreduce averages the whole momentum, no coordinate is stale and no local error is left; with
  // H = 1 the model is also averaged after every step. Workers starting equal therefore stay bit-identical, and the
  // model moves (lr > 0, non-zero gradients). Bytes: per step a k·P = 16-value allreduce plus a 16-value model sync.
  Slamb opt(LAYOUT, 16, 3, {{"lr", 0.01}, {"k", 1.0}, {"H", 1}});
  const Vec x0 = Vec::LinSpaced(16, -1, 1);
  std::vector<Vec> x(3, x0);
  std::mt19937 rng(5);
  for (int s = 1; s <= 4; ++s) {
    opt.step(x, random_grads(3, 16, rng));
    CHECK((x[0] - x[1]).norm() == 0);
    CHECK((x[0] - x[2]).norm() == 0);
  }
  CHECK((x[0] - x0).norm() > 0);
  CHECK(opt.bytes_sent_per_worker() == 4 * ring_allreduce_bytes(16, 3) + 4 * ring_allreduce_bytes(16, 3));
}
