// Sharded data-parallel convergence runs (SDP4Bit §4): gradients reduce-scattered (fp32, or TLq / TLq-HS / ULq
// through numerics::TwoLevelQuantizer), AdamW on the fp32 master weights, and the model copy every rank computes
// with gathered as bf16, as 4-bit weight differences (qWD, numerics::WeightDiffQuantizer) or as 4-bit weights (qW).
#include "algorithms/TrainingPaths.hpp"

#include "numerics/ParallelFor.hpp"
#include "numerics/TwoLevelQuantizer.hpp"
#include "numerics/WeightDiffQuantizer.hpp"
#include "workloads/proxy/ProxyModel.hpp"

#include <chrono>
#include <memory>
#include <stdexcept>

namespace ccsim::algorithms {

namespace {
double get(const numerics::Hyper& h, const char* key, double fallback)
{
  return numerics::hyper_or(h, key, fallback);
}

/// The quantizer of `grads` (the training loop's twin of sharded_gradient_ops); none for the fp32 reduce-scatter.
std::unique_ptr<numerics::TwoLevelQuantizer> gradient_quantizer(GradComm grads, std::size_t n, std::size_t nodes,
                                                                std::size_t g, const TrainConfig& c)
{
  auto config = numerics::TwoLevelConfig::ulq(nodes, g); // ULq and ZeRO++'s qgZ: 4 bits in both stages
  switch (grads) {
  case GradComm::FP32_REDUCE_SCATTER: return nullptr;
  case GradComm::TLQ: config = numerics::TwoLevelConfig::tlq(nodes, g); break;
  case GradComm::TLQ_HS: config = numerics::TwoLevelConfig::tlq_hs(nodes, g); break;
  case GradComm::ULQ_INT4:
  case GradComm::QGZ_INT4: break;
  }
  return std::make_unique<numerics::TwoLevelQuantizer>(n, config, c.seed, *c.kernels);
}
} // namespace

TrainResult train_sharded(const TrainConfig& c, WeightComm weights, GradComm gradients)
{
  const auto wall0     = std::chrono::steady_clock::now();
  const auto W         = static_cast<std::size_t>(c.workers);
  const auto g         = static_cast<std::size_t>(get(c.hyper, "gpus_per_node", 4));
  if (W % g != 0)
    throw std::invalid_argument("workers must be a multiple of gpus_per_node");
  const auto model_ptr = workloads::make_proxy_model(c.model, c.seed, c.text); // the mlp or the tiny transformer
  const workloads::ProxyModel& model = *model_ptr;
  const std::size_t n = model.size();

  const auto tlq = gradient_quantizer(gradients, n, W / g, g, c);
  const bool qwd = weights == WeightComm::QWD_INT4;
  const numerics::WeightDiffQuantizer wdq({}, c.seed, *c.kernels);

  numerics::Vec master = initial_params_of(c, model.initial_params(c.seed)); // fp32 master weights (sharded over ranks in reality)
  numerics::Vec copy   = master;                        // the model every rank computes with
  numerics::round_to_bf16(copy.data(), n);
  numerics::AdamState opt;
  const int local = c.global_batch / c.workers;
  TrainResult r;
  r.loss_curve.emplace_back(0, model.eval_loss(copy));
  std::vector<numerics::Vec> grads(W);
  std::vector<std::vector<float>> shards;
  for (int step = 1; step <= c.steps; ++step) {
    numerics::parallel_for(W, [&](std::size_t w) { // workers are independent: any thread count, same result
      model.batch_gradient(copy, local, w, static_cast<std::uint64_t>(step), grads[w]);
    });
    r.step_phase.push_back("sharded");
    numerics::Vec avg(static_cast<long>(n));
    if (tlq) {
      std::vector<const float*> in;
      for (auto& v : grads)
        in.push_back(v.data());
      tlq->reduce_scatter(in, shards, static_cast<std::uint64_t>(step));
      std::vector<float> full;
      for (const auto& s : shards)
        full.insert(full.end(), s.begin(), s.end());
      for (std::size_t i = 0; i < n; ++i)
        avg[static_cast<long>(i)] = full[i];
      r.bytes_per_worker += tlq->intra_bytes() * (g - 1) / g + tlq->inter_bytes() * (W / g - 1) / (W / g);
    } else {
      avg = numerics::average(grads);
      r.bytes_per_worker += 4ull * n * (W - 1) / W; // fp32 reduce-scatter
    }
    // Megatron's distributed optimizer: AdamW with bias correction on each rank's shard of the master weights.
    numerics::adam_update(master, avg, opt, get(c.hyper, "lr", kDefaultLr), 0.9, 0.95, 1e-8, get(c.hyper, "weight_decay", 0), true);
    if (qwd) {
      // qWD: each owner sends Q(w - w̃) of its shard; every rank adds deQ into its bf16 copy (§4.1).
      const auto msg = wdq.encode(master.data(), copy.data(), n, static_cast<std::uint64_t>(step));
      wdq.apply(msg, copy.data());
      r.bytes_per_worker += msg.wire_bytes() * (W - 1) / W;
    } else if (weights == WeightComm::QW_INT4 || weights == WeightComm::QWZ_INT8) {
      const int bits = weights == WeightComm::QW_INT4 ? 4 : 8; // plain 4-bit weights; ZeRO++'s qwZ is int8
      numerics::quantize_weights(master.data(), n, bits, 2048, numerics::Rounding::STOCHASTIC,
                                 c.seed + static_cast<std::uint64_t>(step), copy.data(), *c.kernels);
      r.bytes_per_worker += numerics::packed_bytes(n, bits, 2048) * (W - 1) / W;
    } else {
      copy = master;
      numerics::round_to_bf16(copy.data(), n);
      r.bytes_per_worker += 2ull * n * (W - 1) / W;
    }
    if (step % c.eval_every == 0 || step == c.steps)
      r.loss_curve.emplace_back(step, model.eval_loss(copy));
    if (!go_on_after(c, step, r, [&] { return model.eval_loss(copy); }))
      break;
  }
  r.final_loss = r.loss_curve.back().second;
  r.wall_s     = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return r;
}

} // namespace ccsim::algorithms
