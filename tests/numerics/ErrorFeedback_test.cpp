// ErrorFeedback: the identity sent + new error == input + old error, dense and sparse, and over many steps.
#include "numerics/ErrorFeedback.hpp"
#include "numerics/Sparsifiers.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

using namespace ccsim::numerics;

TEST_CASE("ErrorFeedback: sparse top-k keeps the identity exactly", "[numerics]")
{
  // p = x + e; the k kept values are sent exactly and e' = p elsewhere, so sent + e' == p bit for bit.
  std::mt19937 rng(1);
  std::normal_distribution<float> d;
  const std::size_t n = 256;
  ErrorFeedback ef(n);
  for (int step = 0; step < 5; ++step) {
    std::vector<float> x(n);
    for (auto& v : x)
      v = d(rng);
    const std::vector<float> old_error = ef.error();
    std::vector<float> p = x;
    ef.compensate(p.data());
    const auto s = top_k(p.data(), n, 16);
    ef.update_sparse(p.data(), s.indices);
    std::vector<float> sent(n, 0.0f);
    scatter(s.values.data(), s.indices, sent.data());
    for (std::size_t i = 0; i < n; ++i)
      REQUIRE(sent[i] + ef.error()[i] == x[i] + old_error[i]);
  }
}

TEST_CASE("ErrorFeedback: a dense sign compressor telescopes over steps", "[numerics]")
{
  // sent_t = sign(p_t)·mean|p_t|; e_t = p_t - sent_t. Summed: sum(sent) + e_T = sum(x). fp32 over 30 steps: 1e-4.
  std::mt19937 rng(2);
  std::normal_distribution<float> d;
  const std::size_t n = 64;
  ErrorFeedback ef(n);
  std::vector<double> sum_x(n, 0), sum_sent(n, 0);
  for (int step = 0; step < 30; ++step) {
    std::vector<float> p(n), sent(n);
    for (std::size_t i = 0; i < n; ++i)
      p[i] = d(rng), sum_x[i] += p[i];
    ef.compensate(p.data());
    double mean_abs = 0;
    for (float v : p)
      mean_abs += std::fabs(v) / n;
    for (std::size_t i = 0; i < n; ++i)
      sent[i] = p[i] >= 0 ? static_cast<float>(mean_abs) : -static_cast<float>(mean_abs), sum_sent[i] += sent[i];
    ef.update(p.data(), sent.data());
  }
  for (std::size_t i = 0; i < n; ++i)
    CHECK(sum_sent[i] + ef.error()[i] == Approx(sum_x[i]).margin(1e-4));
}
