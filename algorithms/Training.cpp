// The training loop shared by every trainable algorithm.
#include "algorithms/Training.hpp"
#include "algorithms/LrSchedule.hpp"

#include "algorithms/OptimizerFactory.hpp"
#include "algorithms/PaperDefaults.hpp"
#include "algorithms/Registry.hpp"
#include "algorithms/TrainParams.hpp"
#include "algorithms/TrainingPaths.hpp"

#include "numerics/ParallelFor.hpp"
#include "workloads/proxy/ProxyModel.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <stdexcept>

namespace ccsim::algorithms {

std::vector<std::string> proxy_models()
{
  return workloads::proxy_model_names();
}

numerics::Vec initial_params_of(const TrainConfig& c, numerics::Vec fresh)
{
  if (!c.initial)
    return fresh;
  if (c.initial->size() != fresh.size())
    throw std::invalid_argument("the starting parameters have " + std::to_string(c.initial->size()) +
                                " values but the model has " + std::to_string(fresh.size()));
  return *c.initial;
}

namespace {
/// Overflowed parameters give a NaN held-out loss (CrossEntropy.cpp). The run goes on (its cost is the same); the
/// first evaluated step that shows it is what `ccsim train` reports instead of a loss.
void note_divergence(TrainResult& r)
{
  if (r.diverged_step < 0 && !std::isfinite(r.loss_curve.back().second))
    r.diverged_step = r.loss_curve.back().first;
}
} // namespace

bool go_on_after(const TrainConfig& c, int step, TrainResult& r, const std::function<double()>& eval)
{
  r.steps_done = step;
  note_divergence(r);
  if (!c.on_step || c.on_step(step, r.loss_curve.back().second))
    return true;
  if (r.loss_curve.back().first != step)
    r.loss_curve.emplace_back(step, eval());
  note_divergence(r);
  return false;
}

TrainResult train(const TrainConfig& c)
{
  const AlgorithmDescriptor& algo = trainable_algorithm(c.algorithm); // throws for a name without an update
  const bool pipeline              = algo.parallelism == Parallelism::PIPELINE;
  const auto model_ptr = workloads::make_proxy_model(c.model, c.seed, c.text); // throws for an unknown name
  if (c.steps < 1)
    throw std::invalid_argument("steps must be at least 1");
  if (c.global_batch < 1)
    throw std::invalid_argument("global batch must be at least 1");
  // A pipeline trains one replica whose stages see the whole batch, so only data parallelism splits it over workers.
  if (!pipeline && (c.workers < 1 || c.global_batch < c.workers || c.global_batch % c.workers != 0))
    throw std::invalid_argument("global batch " + std::to_string(c.global_batch) + " must be a positive multiple of " +
                                std::to_string(c.workers) + " workers");
  // Every key must be one this algorithm reads, inside its range (algorithms/TrainParams.cpp): an unknown key is a
  // typo, not a default, and no loop may see NaN or a zero divisor.
  check_train_params(c.algorithm, c.hyper, c.workers);
  if (algo.train_loop) // sharded and pipelined algorithms: a loop of their own
    return algo.train_loop(c);
  const auto wall0 = std::chrono::steady_clock::now();
  const workloads::ProxyModel& model = *model_ptr;
  numerics::Hyper hyper = c.hyper;
  hyper.emplace("lr", kDefaultLr);
  // Without bias correction by default (BertAdam, DeepSpeed's 1-bit optimizers), except for torch's Adam and AdamW,
  // which always correct (numerics/Optimizers.hpp, AdamVariant). Only the updates with Adam's formula read it.
  if (algo.train_param("bias_correction") != nullptr)
    hyper.emplace("bias_correction", numerics::hyper_or(hyper, "adam_variant", 0) == 0 ? 0.0 : 1.0);
  // Warm-ups as the plans assume (algorithms/PaperDefaults.hpp): 15 % for 1-bit Adam, 16.7 % for 1-bit LAMB.
  hyper = with_defaults(hyper, algorithm_defaults(c.algorithm, c.steps, hyper));
  // The schedule is the trainer's, not the optimizer's: a word parameter the optimizers never see.
  const auto schedule = static_cast<LrSchedule>(static_cast<int>(numerics::hyper_or(hyper, "lr_schedule", 0)));
  hyper.erase("lr_schedule");
  const auto opt = make_distributed_optimizer(c.algorithm, model.layout(), static_cast<std::size_t>(c.workers), hyper,
                                              *c.kernels);

  std::vector<numerics::Vec> params(static_cast<std::size_t>(c.workers), initial_params_of(c, model.initial_params(c.seed)));
  std::vector<numerics::Vec> grads(static_cast<std::size_t>(c.workers));
  const int local = c.global_batch / c.workers;
  TrainResult r;
  r.loss_curve.emplace_back(0, model.eval_loss(params[0]));
  for (int step = 1; step <= c.steps; ++step) {
    numerics::parallel_for(params.size(), [&](std::size_t w) { // workers are independent: any thread count, same result
      model.batch_gradient(params[w], local, w, static_cast<std::uint64_t>(step), grads[w]);
    });
    r.step_phase.push_back(opt->phase());
    opt->set_lr_scale(lr_scale(schedule, step, c.steps));
    opt->step(params, grads);
    if (step % c.eval_every == 0 || step == c.steps)
      r.loss_curve.emplace_back(step, model.eval_loss(params[0]));
    if (!go_on_after(c, step, r, [&] { return model.eval_loss(params[0]); }))
      break;
  }
  r.final_loss       = r.loss_curve.back().second;
  r.bytes_per_worker = opt->bytes_sent_per_worker();
  if (c.keep_params != nullptr)
    *c.keep_params = params[0];
  r.wall_s           = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return r;
}

} // namespace ccsim::algorithms
