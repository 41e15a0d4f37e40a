#pragma once
// Short training runs through every numeric path of `ccsim train` (data-parallel, compressed and layer-wise
// optimizers on the mlp and char-gpt, sharded data parallelism, pipelines), written out as the exact bits of every
// held-out loss and the bytes each worker sent. tests/support/TrainingBytesMain.cpp prints them from builds for
// other vector widths; tests/algorithms/TrainingBytes_test.cpp compares those prints, and runs on other thread
// counts, with this build's (issue 42: the same command gives the same bytes on any CPU).

#include "algorithms/Training.hpp"

#include <cstdio>
#include <string>
#include <vector>

namespace ccsim::test {

/// The runs: a few steps each, with the warm-ups short enough that every compressed phase runs.
inline std::vector<algorithms::TrainConfig> training_bytes_runs()
{
  std::vector<algorithms::TrainConfig> runs;
  auto add = [&](const std::string& model, const std::string& algorithm, int steps, int batch, numerics::Hyper hyper) {
    algorithms::TrainConfig c;
    c.model        = model;
    c.algorithm    = algorithm;
    c.workers      = 4;
    c.steps        = steps;
    c.global_batch = batch;
    c.eval_every   = 2;
    c.hyper        = std::move(hyper);
    runs.push_back(c);
  };
  // Data parallel on the mlp: every optimizer and compressor, freeze at 15 % (step 3 of 20).
  for (const char* a : {"adam", "onebit-adam", "naive-1bit-adam", "lamb", "onebit-lamb", "lamb-basic-1bit", "slamb",
                        "randk-lamb", "topk-lamb"})
    add("mlp", a, 20, 64, std::string(a) == "slamb" ? numerics::Hyper{{"lr", 0.01}, {"H", 5}} : numerics::Hyper{{"lr", 0.01}});
  // char-gpt with the papers' schedules (numerics::portable_pow), per-tensor 1-bit compression, GELU and softmax.
  add("char-gpt", "adam", 6, 8, {{"lr_schedule", 1}});
  add("char-gpt", "onebit-adam", 6, 8, {{"lr_schedule", 1}, {"compression_unit", 1}, {"freeze_step", 2}});
  add("char-gpt", "onebit-lamb", 6, 8, {{"lr_schedule", 3}, {"lr", 0.02}, {"freeze_step", 2}});
  add("char-gpt", "slamb", 6, 8, {{"lr_schedule", 4}, {"lr", 0.02}, {"H", 3}});
  // Sharded data parallelism: bf16 copies, 4-bit weight differences, two-level Hadamard-smoothed gradients, int8.
  for (const char* a : {"megatron-dp", "sdp4bit", "qw", "tlq-hs", "zeropp"})
    add("mlp", a, 10, 64, {{"gpus_per_node", 2}});
  add("char-gpt", "sdp4bit", 4, 8, {{"gpus_per_node", 2}});
  // Pipelines: activation deltas and direct quantization across the cuts.
  for (const char* a : {"fp32-pipeline", "aq-sgd", "directq"})
    add("mlp", a, 12, 32, {{"pp", 4}, {"train_examples", 128}});
  add("tiny-transformer", "aq-sgd", 6, 4, {{"pp", 2}, {"train_examples", 8}});
  return runs;
}

/// One line per run: model, algorithm, bytes per worker, then every (step, held-out loss) with the loss in C's %a
/// (its exact bits).
inline std::string training_bytes()
{
  std::string out;
  for (const auto& c : training_bytes_runs()) {
    const auto r = algorithms::train(c);
    out += c.model + " " + c.algorithm + " " + std::to_string(r.bytes_per_worker);
    for (const auto& [step, loss] : r.loss_curve) {
      char buf[64];
      std::snprintf(buf, sizeof buf, " %d:%a", step, loss);
      out += buf;
    }
    out += "\n";
  }
  return out;
}

} // namespace ccsim::test
