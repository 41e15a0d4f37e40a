// Pipeline-parallel convergence runs (AQ-SGD §3–4): the staged MLP over `pp` stages, forward activations and
// backward gradients crossing every cut through the real quantizers, per-example buffers m(ξ) for AQ-SGD. The model
// is the staged MLP or the staged tiny transformer (workloads/proxy/PipelineModel.hpp).
#include "algorithms/TrainingPaths.hpp"

#include "numerics/DeltaBuffers.hpp"
#include "numerics/QuantizedSizes.hpp"
#include "workloads/proxy/PipelineModel.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>
#include <unordered_map>
#include <vector>

namespace ccsim::algorithms {

namespace {
double get(const numerics::Hyper& h, const char* key, double fallback)
{
  return numerics::hyper_or(h, key, fallback);
}

/// Quantizes a [channels x examples] matrix per channel over the micro-batch (AC-SGD scales over dims (0,1), the
/// micro-batch and sequence), returns what the receiver gets, and adds the bytes sent to `bytes`.
workloads::Mat direct(const workloads::Mat& a, int bits, std::uint64_t& bytes, const numerics::CompressionKernels& kernels)
{
  // numerics is row-major [rows = examples][channels]; Eigen's column-major [channels x examples] is exactly that.
  workloads::Mat out(a.rows(), a.cols());
  bytes += numerics::direct_quantize(a.data(), static_cast<std::size_t>(a.cols()), static_cast<std::size_t>(a.rows()),
                                     bits, out.data(), kernels);
  return out;
}
} // namespace

TrainResult train_pipeline(const TrainConfig& c, ActivationComm comm)
{
  const auto wall0 = std::chrono::steady_clock::now();
  const int pp     = static_cast<int>(get(c.hyper, "pp", kDefaultPipelineStages));
  const int fw     = static_cast<int>(get(c.hyper, "fw_bits", 2));
  const int bw     = static_cast<int>(get(c.hyper, "bw_bits", 4));
  if (pp < 2)
    throw std::invalid_argument("pipeline training needs pp >= 2");
  const auto model_ptr =
      workloads::make_pipeline_model(c.model, pp, static_cast<int>(get(c.hyper, "train_examples", 0)), c.seed, c.text);
  const workloads::PipelineModel& model = *model_ptr;
  const long P = model.positions(); // columns per example in a cut's activation
  const int batch           = c.global_batch;
  const int steps_per_epoch = model.train_examples() / batch;
  if (steps_per_epoch < 1)
    throw std::invalid_argument("global batch larger than the training set");
  const bool aq     = comm == ActivationComm::DELTA_QUANT;
  const bool quant  = comm != ActivationComm::FP32;
  numerics::Vec p   = initial_params_of(c, model.initial_params(c.seed));
  numerics::AdamState opt;
  // Per-example buffers m(ξ) at every cut ([channels x positions] each); sender and receiver hold identical
  // copies, so one suffices here.
  std::vector<std::unordered_map<int, workloads::Mat>> m(static_cast<std::size_t>(pp - 1));

  TrainResult r;
  r.loss_curve.emplace_back(0, model.eval_loss(p));
  std::vector<int> order(static_cast<std::size_t>(model.train_examples()));
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(c.seed);
  for (int step = 1; step <= c.steps; ++step) {
    const int in_epoch = (step - 1) % steps_per_epoch;
    const int epoch    = (step - 1) / steps_per_epoch;
    if (in_epoch == 0)
      std::shuffle(order.begin(), order.end(), rng);
    const std::vector<int> ids(order.begin() + in_epoch * batch, order.begin() + (in_epoch + 1) * batch);
    // AQ-SGD Algorithm 1 lines 4–5: the first epoch sends activations uncompressed and fills m(ξ).
    const bool compress = quant && !(aq && epoch == 0);
    r.step_phase.push_back(aq && epoch == 0 ? "first-epoch" : (quant ? "compressed" : "fp32"));

    std::vector<workloads::Mat> inputs(static_cast<std::size_t>(pp));
    inputs[0] = model.inputs(ids);
    for (int s = 0; s + 1 < pp; ++s) {
      workloads::Mat a = model.forward(p, s, inputs[static_cast<std::size_t>(s)]);
      auto& buf        = m[static_cast<std::size_t>(s)];
      if (!compress) {
        r.bytes_per_worker += 4ull * static_cast<std::uint64_t>(a.size());
        if (aq)
          for (std::size_t j = 0; j < ids.size(); ++j)
            buf[ids[j]] = a.middleCols(static_cast<long>(j) * P, P);
      } else if (aq) {
        // Send Q(a - m(ξ)) with per-channel scales over the micro-batch; both sides: m(ξ) += deQ (Algorithm 1). The
        // fused sender kernel updates the gathered buffers in place: the delta is never written out and read back
        // (issue 49), and m + code / 2^(b-1) · scale is the expression deQ-then-add computed.
        workloads::Mat prev(a.rows(), a.cols());
        for (std::size_t j = 0; j < ids.size(); ++j)
          prev.middleCols(static_cast<long>(j) * P, P) = buf.at(ids[j]);
        const auto rows = static_cast<std::size_t>(a.cols()), channels = static_cast<std::size_t>(a.rows());
        std::vector<std::int8_t> codes(rows * channels);
        std::vector<float> scales(channels);
        c.kernels->quantize_delta_channels(a.data(), prev.data(), rows, channels, fw, codes.data(), scales.data());
        r.bytes_per_worker += numerics::channel_quantized_bytes(rows, channels, fw);
        a = prev;
        for (std::size_t j = 0; j < ids.size(); ++j)
          buf[ids[j]] = a.middleCols(static_cast<long>(j) * P, P);
      } else {
        a = direct(a, fw, r.bytes_per_worker, *c.kernels); // DirectQ: the activation itself
      }
      inputs[static_cast<std::size_t>(s) + 1] = a;
    }
    const workloads::Mat logits = model.forward(p, pp - 1, inputs.back());
    workloads::Mat d;
    model.loss(logits, model.labels(ids), &d);
    numerics::Vec grad = numerics::Vec::Zero(p.size());
    for (int s = pp - 1; s >= 0; --s) {
      d = model.backward(p, s, inputs[static_cast<std::size_t>(s)], d, grad);
      if (s > 0) {
        // Backward gradients are quantized directly, by AQ-SGD and DirectQ alike (AQ-SGD §3; notes §8.2).
        if (compress)
          d = direct(d, bw, r.bytes_per_worker, *c.kernels);
        else
          r.bytes_per_worker += 4ull * static_cast<std::uint64_t>(d.size());
      }
    }
    // AdamW as AQ-SGD fine-tunes (appendix B), lr from the config.
    numerics::adam_update(p, grad, opt, get(c.hyper, "lr", kDefaultLr), 0.9, 0.999, 1e-8, get(c.hyper, "weight_decay", 0), true);
    if (step % c.eval_every == 0 || step == c.steps)
      r.loss_curve.emplace_back(step, model.eval_loss(p));
    if (!go_on_after(c, step, r, [&] { return model.eval_loss(p); }))
      break;
  }
  // bytes_per_worker: what crosses the cuts, divided over the pp stages that send it
  r.bytes_per_worker /= static_cast<std::uint64_t>(pp);
  r.final_loss = r.loss_curve.back().second;
  r.wall_s     = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return r;
}

} // namespace ccsim::algorithms
