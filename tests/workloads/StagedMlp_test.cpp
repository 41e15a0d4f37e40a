// The pipelined MLP's stage-wise backward against central finite differences of the whole model's loss.
#include "workloads/proxy/StagedMlp.hpp"

#include <catch2/catch.hpp>

using namespace ccsim::workloads;

TEST_CASE("StagedMlp: chaining the stages' backward gives the finite-difference gradient", "[workloads]")
{
  const StagedMlp model(3, 8, 64, 3);
  const Vec p = model.initial_params(5);
  const std::vector<int> ids = {0, 5, 9, 20};
  auto loss_of = [&](const Vec& params) {
    Mat a = model.inputs(ids);
    for (int s = 0; s < model.stages(); ++s)
      a = model.forward(params, s, a);
    return model.loss(a, model.labels(ids), nullptr);
  };
  std::vector<Mat> in(3);
  in[0] = model.inputs(ids);
  for (int s = 0; s < 2; ++s)
    in[static_cast<std::size_t>(s) + 1] = model.forward(p, s, in[static_cast<std::size_t>(s)]);
  Mat d;
  model.loss(model.forward(p, 2, in[2]), model.labels(ids), &d);
  Vec grad = Vec::Zero(p.size());
  for (int s = 2; s >= 0; --s)
    d = model.backward(p, s, in[static_cast<std::size_t>(s)], d, grad);
  for (long i = 0; i < p.size(); i += 37) { // a spread of weights and biases of every stage
    Vec plus = p, minus = p;
    plus[i] += 1e-2f;
    minus[i] -= 1e-2f;
    const double numeric = (loss_of(plus) - loss_of(minus)) / 2e-2;
    INFO("parameter " << i);
    CHECK(grad[i] == Approx(numeric).margin(2e-3).epsilon(0.02));
  }
}
