// The kernel seam in the training loop. On the CPU: a recording kernel set passed in TrainConfig::kernels sees
// every kernel of the algorithm's compressors, as often as the algorithm's structure says, and the run is
// bit-identical to the default (CPU) one. On a GPU: the CUDA kernel set reproduces the CPU loss curve exactly.
#include "algorithms/Training.hpp"
#include "numerics/cuda/CudaKernels.hpp"
#include "tests/support/CudaDevice.hpp"
#include "tests/support/RecordingKernels.hpp"

#include <catch2/catch.hpp>

using ccsim::algorithms::train;
using ccsim::algorithms::TrainConfig;
using ccsim::algorithms::TrainResult;
using ccsim::test::RecordingKernels;
using Names = std::set<std::string>;

namespace {
/// 20 steps of 4 workers on the MLP: freeze_step is 15 % = 3 for 1-bit Adam and 16.7 % = 3 for 1-bit LAMB.
TrainConfig short_run(const std::string& algorithm, const ccsim::numerics::CompressionKernels& kernels)
{
  TrainConfig c;
  c.algorithm    = algorithm;
  c.workers      = 4;
  c.steps        = 20;
  c.global_batch = 64;
  c.eval_every   = 5;
  c.kernels      = &kernels;
  return c;
}

/// Trains `algorithm` on a recording set and on the CPU set: the same curve and bytes to the last bit.
RecordingKernels recorded_run(const std::string& algorithm)
{
  RecordingKernels rec;
  const TrainResult with_rec = train(short_run(algorithm, rec));
  const TrainResult plain    = train(short_run(algorithm, ccsim::numerics::cpu_kernels()));
  CHECK(with_rec.loss_curve == plain.loss_curve);
  CHECK(with_rec.bytes_per_worker == plain.bytes_per_worker);
  return rec;
}

/// One compressed allreduce per compressed step over W = 4 workers: W worker compressions, W server averages fused
/// with their compression, and the unpacks: the MLP's 2,762 parameters pad to 2,784 in chunks of 696, so chunks 0-2
/// go straight into each of the 4 workers' buffers and chunk 3 (into the padding) is unpacked once: 13 — and no
/// other kernel.
void check_onebit_calls(const RecordingKernels& rec, int compressed_steps)
{
  CHECK(rec.calls("compress_compensated") == compressed_steps * 4);
  CHECK(rec.calls("compress_average") == compressed_steps * 4);
  CHECK(rec.calls("unpack_signs") == compressed_steps * 13);
  CHECK(rec.called() == Names{"compress_compensated", "compress_average", "unpack_signs"});
}
} // namespace

TEST_CASE("Training: onebit-adam runs its 1-bit kernels on the given kernel set after the warm-up", "[algorithms]")
{
  check_onebit_calls(recorded_run("onebit-adam"), 20 - 3); // 3 warm-up steps: 15 % of 20
}

TEST_CASE("Training: naive-1bit-adam compresses its gradients on the given kernel set every step", "[algorithms]")
{
  check_onebit_calls(recorded_run("naive-1bit-adam"), 20);
}

TEST_CASE("Training: onebit-lamb and lamb-basic-1bit run their 1-bit kernels on the given kernel set", "[algorithms]")
{
  for (const char* algorithm : {"onebit-lamb", "lamb-basic-1bit"}) {
    INFO(algorithm);
    check_onebit_calls(recorded_run(algorithm), 20 - 3); // 3 warm-up steps: 16.7 % of 20
  }
}

TEST_CASE("Training: slamb gathers and scatters its shared random-k mask on the given kernel set", "[algorithms]")
{
  const auto rec = recorded_run("slamb");
  // Every step each of the 4 workers gathers its k masked momenta and scatters the averaged ones back.
  CHECK(rec.calls("gather") == 20 * 4);
  CHECK(rec.calls("scatter") == 20 * 4);
  CHECK(rec.called() == Names{"gather", "scatter"});
}

TEST_CASE("Training: topk-lamb and randk-lamb select and send on the given kernel set", "[algorithms]")
{
  // Every step each worker gathers its selected error entries and zeroes them by a scatter; top-k also selects.
  const auto top = recorded_run("topk-lamb");
  CHECK(top.calls("top_k_indices") == 20 * 4);
  CHECK(top.calls("gather") == 20 * 4);
  CHECK(top.calls("scatter") == 20 * 4);
  const auto rand = recorded_run("randk-lamb");
  CHECK(rand.called() == Names{"gather", "scatter"}); // the shared mask is drawn on the host
  CHECK(rand.calls("gather") == 20 * 4);
}

TEST_CASE("Training: uncompressed adam calls no compression kernel", "[algorithms]")
{
  CHECK(recorded_run("adam").called().empty());
}

TEST_CASE("Training: sdp4bit and qw run their quantizers on the given kernel set", "[algorithms]")
{
  // 4 workers as G = 2 nodes x g = 2 GPUs. Per step TLq-HS (tests/numerics/CompressionKernels_test.cpp): Hadamard
  // of each input and output shard (2W = 8), quantizations W + W·G = 12, dequantize-accumulates W² + W·G = 24;
  // qWD adds one quantization (the owner's Q(w - w~)) and one dequantization (deQ into the copy).
  auto sharded = [](const std::string& algorithm) {
    RecordingKernels rec;
    TrainConfig with_rec = short_run(algorithm, rec), plain = short_run(algorithm, ccsim::numerics::cpu_kernels());
    with_rec.hyper = plain.hyper = {{"gpus_per_node", 2}};
    CHECK(train(with_rec).loss_curve == train(plain).loss_curve);
    return rec;
  };
  const auto sdp = sharded("sdp4bit");
  CHECK(sdp.calls("hadamard32") == 20 * 8);
  CHECK(sdp.calls("quantize_groups_packed") == 20 * (12 + 1));
  CHECK(sdp.calls("dequantize_accumulate_packed") == 20 * 24);
  CHECK(sdp.calls("dequantize_groups_packed") == 20 * 1);
  // qW: fp32 gradients (no kernel), the weights quantized and dequantized once a step.
  const auto qw = sharded("qw");
  CHECK(qw.called() == Names{"quantize_groups_packed", "dequantize_groups_packed"});
  CHECK(qw.calls("quantize_groups_packed") == 20);
}

TEST_CASE("Training: aq-sgd and directq quantize every cut on the given kernel set", "[algorithms]")
{
  // pp = 4 stages, 3 cuts; a 64-example training set at batch 64 is one step per epoch. A compressed step sends
  // 3 forward activations and 3 backward gradients. DirectQ: each one quantize + one dequantize. AQ-SGD: each forward
  // delta one fused quantize_delta_channels (codes and the buffers' update in one kernel, issue 49), each gradient
  // one quantize + one dequantize. AQ-SGD's first epoch (step 1) goes in fp32 (Algorithm 1 lines 4-5), DirectQ
  // compresses from step 1.
  auto pipelined = [](const std::string& algorithm) {
    RecordingKernels rec;
    TrainConfig with_rec = short_run(algorithm, rec), plain = short_run(algorithm, ccsim::numerics::cpu_kernels());
    with_rec.hyper = plain.hyper = {{"pp", 4}, {"train_examples", 64}};
    const TrainResult a = train(with_rec), b = train(plain);
    CHECK(a.loss_curve == b.loss_curve);
    CHECK(a.bytes_per_worker == b.bytes_per_worker);
    return rec;
  };
  const auto aq = pipelined("aq-sgd");
  CHECK(aq.called() == Names{"quantize_delta_channels", "quantize_channels", "dequantize_channels"});
  CHECK(aq.calls("quantize_delta_channels") == 19 * 3);
  CHECK(aq.calls("quantize_channels") == 19 * 3);
  CHECK(aq.calls("dequantize_channels") == 19 * 3);
  CHECK(pipelined("directq").calls("quantize_channels") == 20 * 6);
}

namespace {
/// The CUDA kernels are bit-identical to the CPU's (tests/numerics/CudaParity_test.cpp: the 1-bit scale too, its
/// double sum is taken in the CPU's lane order) and all other arithmetic of the loop is the same host code, so the
/// tolerance is zero: the loss curves and byte counts must be equal, not close.
void check_cuda_equals_cpu(const TrainConfig& cpu_config)
{
  TrainConfig gpu_config = cpu_config;
  gpu_config.kernels     = &ccsim::numerics::cuda::cuda_kernels();
  const TrainResult cpu  = train(cpu_config);
  const TrainResult gpu  = train(gpu_config);
  CHECK(gpu.loss_curve == cpu.loss_curve);
  CHECK(gpu.bytes_per_worker == cpu.bytes_per_worker);
}
} // namespace

TEST_CASE("Training: the CUDA kernel set gives the CPU loss curve exactly for sharded and pipelined runs",
          "[algorithms][cuda]")
{
  if (ccsim::test::no_cuda_device())
    return;
  for (const char* algorithm : {"sdp4bit", "qw"}) {
    INFO(algorithm);
    TrainConfig c = short_run(algorithm, ccsim::numerics::cpu_kernels());
    c.hyper       = {{"gpus_per_node", 2}};
    check_cuda_equals_cpu(c);
  }
  for (const char* algorithm : {"aq-sgd", "directq"}) {
    INFO(algorithm);
    TrainConfig c = short_run(algorithm, ccsim::numerics::cpu_kernels());
    c.hyper       = {{"pp", 4}, {"train_examples", 64}};
    check_cuda_equals_cpu(c);
  }
}

TEST_CASE("Training: the CUDA kernel set gives the CPU loss curve exactly for the 1-bit family", "[algorithms][cuda]")
{
  if (ccsim::test::no_cuda_device())
    return;
  for (const char* algorithm : {"onebit-adam", "naive-1bit-adam", "onebit-lamb", "lamb-basic-1bit"}) {
    INFO(algorithm);
    check_cuda_equals_cpu(short_run(algorithm, ccsim::numerics::cpu_kernels()));
  }
}

TEST_CASE("Training: the CUDA kernel set gives the CPU loss curve exactly for the sparse family", "[algorithms][cuda]")
{
  if (ccsim::test::no_cuda_device())
    return;
  for (const char* algorithm : {"slamb", "topk-lamb", "randk-lamb"}) {
    INFO(algorithm);
    check_cuda_equals_cpu(short_run(algorithm, ccsim::numerics::cpu_kernels()));
  }
}

TEST_CASE("Training: the CUDA kernel set gives the CPU loss curve exactly on the tiny transformer",
          "[algorithms][cuda]")
{
  if (ccsim::test::no_cuda_device())
    return;
  // 0.24 M parameters in 38 tensors: the 1-bit buffer is padded across tensors and the lane sums run long.
  TrainConfig c  = short_run("onebit-adam", ccsim::numerics::cpu_kernels());
  c.model        = "tiny-transformer";
  c.steps        = 6;
  c.global_batch = 8;
  check_cuda_equals_cpu(c);
}
