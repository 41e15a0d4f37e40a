// The kernel seam on the CPU: every compressor given a recording kernel set (which counts calls and forwards to
// the CPU set) calls exactly the kernels of its algorithm, as often as its structure says, and gives the default
// path's result bit for bit — so what a GPU kernel set receives is what the CPU computes. Without a device,
// cuda_kernels() refuses with its one-line reason.
#include "numerics/Demo.hpp"
#include "numerics/PowerSgd.hpp"
#include "numerics/StreamingDiloco.hpp"
#include "numerics/cuda/CudaKernels.hpp"
#include "numerics/cuda/Device.hpp"
#include "tests/support/CompressorRuns.hpp"
#include "tests/support/RecordingKernels.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <memory>

using namespace ccsim::numerics;
using ccsim::test::RecordingKernels;
using Names = std::set<std::string>;

namespace {
/// Runs a compressor (one of tests/support/CompressorRuns.hpp) on a recording set and on the CPU set; the outputs
/// must be equal to the last bit. Returns the recording.
template <typename Run>
RecordingKernels recorded(const Run& run)
{
  RecordingKernels rec;
  CHECK(run(rec) == run(cpu_kernels()));
  return rec;
}
} // namespace

TEST_CASE("CompressionKernels: the CPU set is named cpu and is one object", "[numerics]")
{
  CHECK(std::string(cpu_kernels().name()) == "cpu");
  CHECK(&cpu_kernels() == &cpu_kernels()); // compressors keep a pointer to it
}

TEST_CASE("CompressedAllreduce: a recording kernel set sees every 1-bit kernel and changes no bit", "[numerics]")
{
  const auto rec = recorded(ccsim::test::run_compressed_allreduce);
  // Per call with W = 4 over 1000 values (padded to 1024, chunks of 256): W worker compressions, W server averages
  // fused with their compression, and the server chunks unpacked (nccl.py l.65–164): chunks 0-2 lie inside the 1000
  // values and go straight into each of the 4 buffers, chunk 3 reaches into the padding and is unpacked once.
  // 3 calls.
  CHECK(rec.calls("compress_compensated") == 3 * 4);
  CHECK(rec.calls("compress_average") == 3 * 4);
  CHECK(rec.calls("unpack_signs") == 3 * (3 * 4 + 1));
  CHECK(rec.called() == Names{"compress_compensated", "compress_average", "unpack_signs"});
}

TEST_CASE("TwoLevelQuantizer: TLq-HS through a recording kernel set calls Hadamard and quantize and "
          "dequantize-accumulate",
          "[numerics]")
{
  const auto rec =
      recorded([](const CompressionKernels& k) { return ccsim::test::run_two_level(TwoLevelConfig::tlq_hs(2, 2), k); });
  // Per step with G = 2 nodes x g = 2 GPUs (W = 4): Hadamard of each input and of each output shard (2W);
  // stage 1 quantizes each worker's buffer (W) and stage 3 each rank's G partial shards (W·G); stage 2 reduces
  // g senders' G shards at each rank (W·G·g = W²) and stage 4 G messages at each rank (W·G). 2 steps.
  CHECK(rec.calls("hadamard32") == 2 * 8);
  CHECK(rec.calls("quantize_groups_packed") == 2 * (4 + 8));
  CHECK(rec.calls("dequantize_accumulate_packed") == 2 * (16 + 8));
  CHECK(rec.called() == Names{"hadamard32", "quantize_groups_packed", "dequantize_accumulate_packed"});
}

TEST_CASE("TwoLevelQuantizer: ULq through a recording kernel set needs no Hadamard and changes no bit", "[numerics]")
{
  const auto rec =
      recorded([](const CompressionKernels& k) { return ccsim::test::run_two_level(TwoLevelConfig::ulq(2, 2), k); });
  CHECK(rec.called() == Names{"quantize_groups_packed", "dequantize_accumulate_packed"});
}

TEST_CASE("WeightDiffQuantizer: qWD and qW through a recording kernel set quantize once per message", "[numerics]")
{
  const auto rec = recorded(ccsim::test::run_weight_diff);
  // 3 qWD steps (encode: one quantization; apply: one dequantization) and one qW (one of each).
  CHECK(rec.calls("quantize_groups_packed") == 4);
  CHECK(rec.calls("dequantize_groups_packed") == 4);
  CHECK(rec.called() == Names{"quantize_groups_packed", "dequantize_groups_packed"});
}

TEST_CASE("ActivationQuantizer: DirectQ and AQ-SGD buffers through a recording kernel set", "[numerics]")
{
  const auto rec = recorded(ccsim::test::run_activations);
  // DirectQ: quantize + dequantize once. AQ-SGD: the first send is the activation itself (no kernel); the next two
  // are deltas, each quantized by the sender and dequantized into the receiver's buffer.
  CHECK(rec.calls("quantize_channels") == 1);
  CHECK(rec.calls("quantize_delta_channels") == 2);
  CHECK(rec.calls("dequantize_channels") == 1 + 2);
  CHECK(rec.called() == Names{"quantize_channels", "quantize_delta_channels", "dequantize_channels"});
}

TEST_CASE("cuda_kernels: without a device it throws its one-line reason", "[numerics]")
{
  if (cuda::device_count() > 0) {
    WARN("a CUDA device is present: the refusal is not exercised");
    return;
  }
  const std::string reason = cuda::built_with_cuda() ? "cuda: no CUDA device found" : "ccsim was built without CUDA";
  CHECK_THROWS_WITH(cuda::cuda_kernels(), reason);
}

namespace {
/// Three steps of a low-communication optimizer (issue 47) on 3 workers' made-up gradients over a layout of two
/// matrices and a vector: the workers' parameters after them, concatenated.
template <typename Make>
std::vector<float> low_comm_run(const Make& make, const CompressionKernels& k)
{
  const TensorLayout layout = {{"l0.w", 0, 64 * 96, 64}, {"l1.w", 6144, 40 * 24, 40}, {"b", 7104, 50, 0}};
  const std::size_t n       = 7154, workers = 3;
  auto opt                  = make(layout, workers, k);
  std::vector<Vec> params(workers, Vec::Zero(static_cast<long>(n)));
  for (int step = 0; step < 3; ++step) {
    std::vector<Vec> grads;
    for (std::size_t w = 0; w < workers; ++w)
      grads.push_back(Vec::NullaryExpr(static_cast<long>(n), [&](long i) {
        return std::sin(0.37f * static_cast<float>(i) + 1.3f * static_cast<float>(w) + static_cast<float>(step));
      }));
    opt->step(params, grads);
  }
  std::vector<float> out;
  for (const auto& p : params)
    out.insert(out.end(), p.data(), p.data() + p.size());
  return out;
}
} // namespace

TEST_CASE("The low-communication optimizers run their products and E3M0 rounding through the kernel set and change "
          "no bit",
          "[numerics]")
{
  // DeMo: two products to encode a row-block of chunks and two to decode it. Each tensor here is one row-block (64 x 96
  // in chunks of 64 x 48, 40 x 24 in one chunk, the vector in pieces of 50): per step each of 3 workers encodes and
  // decodes what it sent (3 x 4 x 3) and the global update is decoded once (2 x 3), 42 products.
  const auto demo = recorded([](const CompressionKernels& k) {
    return low_comm_run(
        [](const TensorLayout& l, std::size_t w, const CompressionKernels& kk) {
          return std::make_unique<Demo>(l, w, Hyper{{"lr", 0.01}}, kk);
        },
        k);
  });
  CHECK(demo.calls("gemm") == 3 * 42);
  CHECK(demo.called() == Names{"gemm"});
  // PowerSGD at rank 2 compresses the two matrices (the vector goes whole): M·Q per worker, Mᵀ·P per worker and P·Qᵀ
  // once, per matrix and step.
  const auto powersgd = recorded([](const CompressionKernels& k) {
    return low_comm_run(
        [](const TensorLayout& l, std::size_t w, const CompressionKernels& kk) {
          return std::make_unique<PowerSgdOptimizer>("adam", l, w, Hyper{{"lr", 0.01}, {"rank", 2}}, kk);
        },
        k);
  });
  CHECK(powersgd.calls("gemm") == 3 * 2 * (3 + 3 + 1));
  CHECK(powersgd.called() == Names{"gemm"});
  // Streaming DiLoCo with H = 1 and one fragment: every step sends the fragment, each worker rounding each of its
  // three tensors to E3M0.
  const auto streaming = recorded([](const CompressionKernels& k) {
    return low_comm_run(
        [](const TensorLayout& l, std::size_t w, const CompressionKernels& kk) {
          return std::make_unique<StreamingDiloco>(
              l, w, Hyper{{"lr", 0.01}, {"inner_steps", 1}, {"fragments", 1}, {"overlap_steps", 0}}, kk);
        },
        k);
  });
  CHECK(streaming.calls("quantize_e3m0") == 3 * 3 * 3);
  CHECK(streaming.called() == Names{"quantize_e3m0"});
}
