// numerics::PowerSgd against PyTorch's own PowerSGD DDP hook (powerSGD_hook, error feedback and warm start on),
// run by scripts/reference/powersgd-hook.py on three gloo processes at ranks 1, 2 and 4: the gradient every worker
// applies at each of six steps (two plain all-reduces, then four compressed) agrees to fp32 rounding. The gradients
// are made to order from integers on both sides (reference_grad); the hook's first random Qs are the recorded ones.
#include "numerics/PowerSgd.hpp"
#include "tests/support/ReferenceVectors.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

using namespace ccsim::numerics;

using ccsim::test::reference_grad;

TEST_CASE("PowerSGD matches torch's powerSGD_hook step by step at ranks 1 2 and 4", "[numerics][powersgd]")
{
  const auto ref          = ccsim::test::reference_fixture("powersgd-hook.json");
  const auto workers      = ref.at("workers").get<std::size_t>();
  const auto steps        = ref.at("steps").get<std::size_t>();
  TensorLayout layout;
  std::size_t offset = 0;
  for (const auto& t : ref.at("tensors")) {
    const auto shape = t.at("shape").get<std::vector<std::size_t>>();
    std::size_t size = 1;
    for (const auto d : shape)
      size *= d;
    // torch views each gradient as shape[0] x rest; a vector is one column either way.
    layout.push_back({t.at("name").get<std::string>(), offset, size, shape.size() > 1 ? shape[0] : 0});
    offset += size;
  }
  for (const auto& run : ref.at("runs")) {
    const int rank = run.at("rank").get<int>();
    INFO("rank " << rank);
    PowerSgdSettings settings;
    settings.rank                 = rank;
    settings.start_iter           = ref.at("start_iter").get<long>();
    settings.min_compression_rate = ref.at("min_compression_rate").get<double>();
    PowerSgd psgd(layout, workers, settings);
    // Which tensors are compressed is ccsim's own _should_compress: it must pick exactly the ones torch drew for.
    std::vector<Eigen::MatrixXf> qs;
    REQUIRE(psgd.compressed().size() == run.at("initial_q").size());
    for (const auto& t : psgd.compressed()) {
      const auto& q = run.at("initial_q").at(layout[t.tensor].name).get<std::vector<float>>();
      REQUIRE(q.size() == t.m * t.rank);
      Eigen::MatrixXf m(static_cast<long>(t.m), static_cast<long>(t.rank));
      for (std::size_t i = 0; i < q.size(); ++i) // row-major m x rank
        m(static_cast<long>(i / t.rank), static_cast<long>(i % t.rank)) = q[i];
      qs.push_back(m);
    }
    psgd.start_from(qs);

    double worst = 0;
    for (std::size_t step = 0; step < steps; ++step) {
      std::vector<Vec> grads(workers, Vec(static_cast<long>(offset)));
      for (std::size_t w = 0; w < workers; ++w)
        for (std::size_t ti = 0; ti < layout.size(); ++ti)
          for (std::size_t i = 0; i < layout[ti].size; ++i)
            grads[w][static_cast<long>(layout[ti].offset + i)] = reference_grad(w, step, ti, i);
      Vec reduced;
      psgd.reduce(grads, reduced);
      const auto& want = run.at("reduced").at(step);
      for (std::size_t ti = 0; ti < layout.size(); ++ti) {
        const auto values = want.at(ti).get<std::vector<float>>();
        REQUIRE(values.size() == layout[ti].size);
        for (std::size_t i = 0; i < values.size(); ++i) {
          const double got = reduced[static_cast<long>(layout[ti].offset + i)];
          worst            = std::max(worst, std::abs(got - values[i]) / (1e-3 + std::abs(values[i])));
        }
      }
    }
    // fp32 rounding: the sums over workers and the norms run in another order than gloo's and torch's (6e-6 on the
    // plain averages), and warm start carries it from step to step: these gradients are noise, whose leading
    // singular values lie close together, so the subspace moves with each rounding. Measured worst after four
    // compressed steps: 8.7e-5 (rank 1), 2.1e-4 (rank 2), 4.3e-4 (rank 4); a wrong formula is off by 1e-1 or more.
    CHECK(worst < 1e-3);
  }
}

TEST_CASE("PowerSGD compresses exactly the matrices whose factors are min_compression_rate times smaller",
          "[numerics][powersgd]")
{
  // _should_compress at rank 2: 16 x 24 -> (16 + 24)·2·2 = 160 < 384 yes; 10 x 4 -> 56 < 40 no; a vector never.
  const TensorLayout layout = {{"w", 0, 384, 16}, {"b", 384, 16, 0}, {"s", 400, 40, 10}};
  PowerSgd psgd(layout, 4, PowerSgdSettings{});
  REQUIRE(psgd.compressed().size() == 1);
  CHECK(psgd.compressed()[0].tensor == 0);
  CHECK(psgd.p_elements() == 32);
  CHECK(psgd.q_elements() == 48);
  CHECK(psgd.uncompressed_elements() == 56);
  // One compressed step's bytes: three fp32 ring all-reduces, 2(W-1)/W x 4 x (32 + 48 + 56) = 816.
  std::vector<Vec> grads(4, Vec::Ones(440));
  Vec reduced;
  psgd.reduce(grads, reduced);
  CHECK(psgd.bytes_sent_per_worker() == 816);
}

TEST_CASE("PowerSGD reproduces a rank-1 gradient exactly and keeps no error for it", "[numerics][powersgd]")
{
  // Every worker's 6 x 8 gradient is u vᵀ: P = u (vᵀQ) spans u, so P Pᵀ M = M and the error is zero.
  const TensorLayout layout = {{"w", 0, 48, 6}};
  PowerSgdSettings s;
  s.rank = 1;
  PowerSgd psgd(layout, 2, s);
  Vec g(48);
  for (int r = 0; r < 6; ++r)
    for (int c = 0; c < 8; ++c)
      g[r * 8 + c] = static_cast<float>((r + 1) * (c - 3.5));
  Vec reduced;
  psgd.reduce({g, g}, reduced);
  CHECK((reduced - g).cwiseAbs().maxCoeff() < 1e-4f * g.cwiseAbs().maxCoeff());
  CHECK(psgd.error(0).cwiseAbs().maxCoeff() < 1e-4f * g.cwiseAbs().maxCoeff());
}

TEST_CASE("orthogonalise_columns gives orthonormal columns spanning the same space", "[numerics][powersgd]")
{
  Eigen::MatrixXf a(4, 2);
  a << 3, 1, 0, 2, 4, 0, 0, 1; // column 0 = (3, 0, 4, 0): norm 5
  orthogonalise_columns(a);
  CHECK(std::abs(a(0, 0) - 0.6f) < 1e-7f);
  CHECK(std::abs(a(2, 0) - 0.8f) < 1e-7f);
  // column 1 = (1, 2, 0, 1) - 0.6·(0.6, 0, 0.8, 0) = (0.64, 2, -0.48, 1), norm sqrt(5.64)
  const float n = std::sqrt(5.64f);
  CHECK(std::abs(a(0, 1) - 0.64f / n) < 1e-6f);
  CHECK(std::abs(a(1, 1) - 2 / n) < 1e-6f);
  CHECK(std::abs(a.col(0).dot(a.col(1))) < 1e-6f);
}
