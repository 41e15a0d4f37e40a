// numerics::Demo against DeMo's own optimizer (bloc97/DeMo demo.py, run by scripts/reference/demo-optimizer.py on
// three gloo processes): the sign of every parameter's step at each of five steps, the parameters after the last and
// worker 0's momentum then; and DeMo's pieces on hand-worked cases (the chunk sizes of _get_smaller_split, the DCT
// basis, a top-k that sends everything).
#include "numerics/Demo.hpp"
#include "tests/support/ReferenceVectors.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

using namespace ccsim::numerics;
using ccsim::test::reference_grad;
using ccsim::test::worst_gap;

namespace {
struct Fixture {
  nlohmann::json ref = ccsim::test::reference_fixture("demo-optimizer.json");
  TensorLayout layout;
  long size = 0;
  Fixture()
  {
    for (const auto& t : ref.at("tensors")) {
      const auto shape = t.at("shape").get<std::vector<std::size_t>>();
      const std::size_t n = shape.size() == 1 ? shape[0] : shape[0] * shape[1];
      layout.push_back({t.at("name").get<std::string>(), static_cast<std::size_t>(size), n,
                        shape.size() == 1 ? 0 : shape[0]});
      size += static_cast<long>(n);
    }
  }
  Hyper hyper() const
  {
    const auto& s = ref.at("settings");
    return {{"lr", s.at("lr")},
            {"weight_decay", s.at("weight_decay")},
            {"compression_decay", s.at("compression_decay")},
            {"topk", s.at("compression_topk")},
            {"chunk", s.at("compression_chunk")}};
  }
  /// reference_grad(worker, step, tensor, index) laid out over the tensors, as the script's sum(param * G) gives it.
  Vec made_to_order(std::uint64_t worker, std::uint64_t step) const
  {
    Vec v(size);
    for (std::size_t t = 0; t < layout.size(); ++t)
      for (std::size_t i = 0; i < layout[t].size; ++i)
        v[static_cast<long>(layout[t].offset + i)] = reference_grad(worker, step, t, i);
    return v;
  }
  /// The fixture's per-tensor lists concatenated.
  std::vector<float> flat(const nlohmann::json& per_tensor) const
  {
    std::vector<float> out;
    for (const auto& t : per_tensor)
      for (float v : t.get<std::vector<float>>())
        out.push_back(v);
    return out;
  }
};

} // namespace

TEST_CASE("DeMo matches bloc97/DeMo's optimizer step by step", "[numerics][demo]")
{
  const Fixture f;
  const auto workers = f.ref.at("workers").get<std::size_t>();
  Demo demo(f.layout, workers, f.hyper());
  std::vector<Vec> params(workers, f.made_to_order(99, 0));
  const Vec start = params[0];
  for (int step = 1; step <= f.ref.at("steps").get<int>(); ++step) {
    std::vector<Vec> grads;
    for (std::size_t w = 0; w < workers; ++w)
      grads.push_back(f.made_to_order(w, static_cast<std::uint64_t>(step)));
    demo.step(params, grads);
    // every sign as DeMo's: the update is one decision per parameter, so one flip would be a different algorithm
    std::string signs;
    for (const auto& t : f.ref.at("signs").at(step - 1))
      signs += t.get<std::string>();
    long differ = 0;
    for (long i = 0; i < f.size; ++i) {
      const float u = demo.last_update()[i];
      differ += signs[static_cast<std::size_t>(i)] != (u > 0 ? '+' : u < 0 ? '-' : '0');
    }
    INFO("step " << step);
    CHECK(differ == 0);
    for (std::size_t w = 1; w < workers; ++w)
      CHECK(params[w] == params[0]);
  }
  // parameters move by lr (0.01) a step: a gap of 1e-5 relative is float rounding, a flipped sign 2e-2
  CHECK(worst_gap(params[0], f.flat(f.ref.at("params_after_last"))) < 1e-5);
  // the momentum keeps what was not sent: its gap is the DCT's rounding (torch computes its basis through an FFT)
  const double delta_gap = worst_gap(demo.momentum(0), f.flat(f.ref.at("delta_after_last")));
  INFO("worst relative gap of worker 0's momentum " << delta_gap);
  CHECK(delta_gap < 5e-5);
  CHECK(demo.bytes_sent_per_worker() ==
        static_cast<std::uint64_t>(f.ref.at("steps").get<int>()) * (workers - 1) *
            f.ref.at("sent_bytes_per_step").get<std::uint64_t>());
  CHECK(params[0] != start);
}

TEST_CASE("DeMo's chunks are demo.py's _get_smaller_split", "[numerics][demo]")
{
  CHECK(demo_chunk_size(128, 64) == 64);
  CHECK(demo_chunk_size(96, 64) == 48);
  CHECK(demo_chunk_size(200, 64) == 50);
  CHECK(demo_chunk_size(7, 64) == 7);   // shorter than a chunk: itself
  CHECK(demo_chunk_size(67, 64) == 1);  // a prime: chunks of one
  CHECK(demo_chunk_size(768, 64) == 64);
  CHECK(demo_chunk_size(50257, 64) == 29); // GPT-2's vocabulary: 50257 = 29 x 1733
  const auto t = demo_tensors({{"w", 0, 96 * 20, 96}, {"b", 1920, 7, 0}}, 1927, DemoSettings{});
  REQUIRE(t.size() == 2);
  CHECK((t[0].chunk_rows == 48 && t[0].chunk_cols == 20 && t[0].chunks() == 2 && t[0].topk == 32));
  CHECK((t[1].chunk_rows == 1 && t[1].chunk_cols == 7 && t[1].chunks() == 1 && t[1].topk == 7));
  CHECK(demo_sent_coefficients(t) == 2 * 32 + 7);
}

TEST_CASE("DeMo's DCT basis is orthonormal and its first row is the mean", "[numerics][demo]")
{
  const std::size_t c = 8;
  const auto m        = dct_matrix(c);
  for (std::size_t a = 0; a < c; ++a)
    for (std::size_t b = 0; b < c; ++b) {
      double dot = 0;
      for (std::size_t i = 0; i < c; ++i)
        dot += static_cast<double>(m[a * c + i]) * m[b * c + i];
      CHECK(dot == Approx(a == b ? 1.0 : 0.0).margin(1e-6));
    }
  for (std::size_t i = 0; i < c; ++i)
    CHECK(m[i] == Approx(1 / std::sqrt(8.0)).epsilon(1e-7));
  // basis 1 at i = 0: sqrt(2/8)·cos(π/16)
  CHECK(m[c] == Approx(0.5 * std::cos(M_PI / 16)).epsilon(1e-7));
}

TEST_CASE("DeMo sending every coefficient is signSGD on the mean of the workers' momenta", "[numerics][demo]")
{
  // One vector of 6 elements (a single chunk of 6 <= topk): everything is sent, so the momentum empties every step
  // and the update is sign(mean over workers of lr·g_w): here sign((g_0 + g_1) / 2).
  const TensorLayout layout = {{"v", 0, 6, 0}};
  Demo demo(layout, 2, {{"lr", 0.5}, {"topk", 32}});
  Vec g0(6), g1(6);
  g0 << 1, -2, 3, 0.5, -0.25, 4;
  g1 << -3, 1, -1, 0.25, -0.5, -5;
  std::vector<Vec> params(2, Vec::Zero(6));
  demo.step(params, {g0, g1});
  Vec want(6);
  want << 0.5, 0.5, -0.5, -0.5, 0.5, 0.5; // -lr·sign(g0 + g1)
  CHECK(params[0].isApprox(want));
  CHECK(params[1] == params[0]);
  CHECK(demo.momentum(0).cwiseAbs().maxCoeff() < 1e-6f);
  CHECK(demo.bytes_sent_per_worker() == 6 * 12); // one other worker receives 6 values and 6 int64 indices
}
