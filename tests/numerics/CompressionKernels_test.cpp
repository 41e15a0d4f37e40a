// The kernel seam on the CPU: every compressor given a recording kernel set (which counts calls and forwards to
// the CPU set) calls exactly the kernels of its algorithm, as often as its structure says, and gives the default
// path's result bit for bit — so what a GPU kernel set receives is what the CPU computes. Without a device,
// cuda_kernels() refuses with its one-line reason.
#include "numerics/cuda/CudaKernels.hpp"
#include "numerics/cuda/Device.hpp"
#include "tests/support/CompressorRuns.hpp"
#include "tests/support/RecordingKernels.hpp"

#include <catch2/catch.hpp>

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
