#pragma once
// Every limit and physical range ccsim accepts on its inputs, in one place. The JSON loaders (JsonInput.hpp) and the
// flag parsers (cli/Options.hpp) read them from here, and the SCHEMA.md of each input states them; a limit is never
// repeated at a call site. Each bound is chosen from the largest real use with a wide margin, and sized so nothing
// downstream can overflow (SimGrid's solver, 32-bit counts, the memory of one process).

#include <cstddef>
#include <cstdint>

namespace ccsim::io {

/// A closed interval of acceptable values. `integer` ranges also require a whole number.
struct Range {
  double lo;
  double hi;
  bool lo_open = false; // lo itself is excluded (a rate must be > 0)
};

namespace limits {
// --- files and documents
/// The largest input file: presets are under 20 KB and the largest generated experiment under 1 MB.
inline constexpr std::uint64_t kMaxFileBytes = 16ull << 20;
/// The deepest JSON nesting: presets nest 4 levels (experiment rows -> paper -> value).
inline constexpr int kMaxJsonDepth = 32;
/// The most values (numbers, strings, objects, arrays, ...) in one JSON document: the largest preset holds ~250 and
/// an experiment of kMaxExperimentPoints rows a few per row. Parsing is linear; this bounds its time (~0.3 s) and the
/// document's memory (a 16 MiB file of `[0,0,...]` would be 8 million values).
inline constexpr std::size_t kMaxJsonValues = 1000000;
/// Rows of one nccl-tests table (calibrate --nccl-tests): nccl-tests prints one per size, 25 for its default sweep
/// (-b 8 -e 128M -f 2) and 41 doubling from 1 byte to 1 TiB. Each fit iteration simulates every row (~0.7 ms each),
/// so the bound keeps a calibration around a second.
inline constexpr std::size_t kMaxNcclTestsRows = 1000;
/// How far a workload's flops_per_sample may exceed the training FLOPs of a dense transformer of its size and
/// sequence, 6·params·seq_len + 12·seq_len²·layers·hidden (Kaplan et al. 2020 §2.1; Megatron's 72·s·l·h²·(1 + s/6h +
/// V/12lh) of Narayanan et al. 2021 §5.1 is within 1 % of it for the GPT presets). Weights applied at many positions
/// per sample that seq_len does not count raise the ratio: Swin-B's patch grid gives 87.5 (workloads/swin-b.json).
/// A value 10^7 times too large (a 2^64 typed by mistake) otherwise simulates a step of years.
inline constexpr double kMaxFlopsOverDense = 1000;
/// The longest piece of user text echoed in an error message (longer text is cut and its length given).
inline constexpr std::size_t kMaxEchoChars = 80;
/// The shortest link latency simulated, in microseconds (1 ns); a latency_us below it (and above 0) counts as 0.
/// Why: SimGrid schedules a latency as the clock plus it, and below the clock's floating-point step (2.2e-16 x the
/// clock, 2e-16 s at 1 s) that sum is the clock itself, which SimGrid's lazy network model does not expect ("The
/// Impossible Did Happen", Model.cpp:99: a flow still waiting out its latency at the moment it was due). 1 ns stays
/// resolvable up to a simulated clock of 4.5e6 s (52 days), and is physically nothing: light crosses 20 cm of cable
/// in it, while the fastest NIC or switch port takes ~100 ns; a step never moves by it beyond its 9th digit.
inline constexpr double kMinLinkLatencyUs = 1e-3;
/// Different items in one list option (--algorithm adam,onebit-adam, --nccl-tests given N times) where the option
/// sets no smaller cap: every built-in algorithm is ~40; each item is a run or a file read.
inline constexpr std::size_t kMaxListItems = 256;
/// Points one experiment may expand to (the largest shipped sweep has 64; 10^5 runs for hours).
inline constexpr std::uint64_t kMaxExperimentPoints = 100000;

// --- cluster size
/// GPUs in one simulation: 4x the largest what-if preset (16,384 GPUs); SimGrid's platform grows linearly.
inline constexpr std::int64_t kMaxGpus = 65536;

// --- workload architecture
/// How far a size field a workload gives may differ from what its `architecture` implies (0.1 %): room for a
/// rounded FLOP count, none for a wrong layer count.
inline constexpr double kArchitectureAgreement = 1e-3;
} // namespace limits

namespace range {
// --- topology (units as in the JSON keys)
inline constexpr Range kGpusPerNode{1, 1024};
inline constexpr Range kMaxNodes{1, 1048576};
inline constexpr Range kTflops{1e-3, 1e5};
inline constexpr Range kMemoryGbps{1, 1e5};           // GB/s of HBM
inline constexpr Range kKernelGbps{1e-3, 1e5};        // GB/s of kernel input
inline constexpr Range kShaperQueueMs{0, 1e5};         // a tc shaper's queue, in milliseconds at the shaped rate
inline constexpr Range kKernelBufferMb{1e-6, 1e7};     // a kernel's buffer size in a throughput-by-size table
// A kernel's or a link's efficiency, a share of its peak in [0.1 %, 100 %]: (0, 1] let a denormal 1e-320 through, and a
// GEMM at that share of its peak takes an infinite time, which SimGrid aborts on ("duration is not finite"). No
// hardware runs at a thousandth of its peak.
inline constexpr Range kFraction{1e-3, 1};
inline constexpr Range kLinkGbps{1e-4, 1e6};          // 100 kbit/s .. 1 Pbit/s per link
inline constexpr Range kLatencyUs{0, 1e6};            // up to one second one way (below 1 ns counts as 0)
inline constexpr Range kNicCount{1, 64};
inline constexpr Range kBitsPerMegabit{1e6, 1048576};
inline constexpr Range kOversubscription{1, 1024};
inline constexpr Range kNodesPerLeaf{1, 65536};
inline constexpr Range kTcpWindowBytes{1024, 1073741824.0};
// --- topology: gpu.compute, the per-operator compute model (topologies/SCHEMA.md)
inline constexpr Range kSms{1, 100000};                // streaming multiprocessors (B200: 148)
inline constexpr Range kTileDim{8, 1024};              // a GEMM output tile's rows or columns
inline constexpr Range kTileCount{1, 64};              // candidate tiles per GPU
inline constexpr Range kFrameworkEfficiency{0.25, 4}; // a stack's kernel rate over Megatron-LM's (gpu.compute)
inline constexpr Range kTileOverheadUs{0, 1000};       // a tile's fixed cost (prologue, epilogue), microseconds
inline constexpr Range kL2Gbps{1, 1e6};                // GB/s of aggregate L2 read bandwidth
inline constexpr Range kLaunchUs{0, 1e4};              // microseconds each kernel adds

// --- workload
inline constexpr Range kParams{1, 1e15};
inline constexpr Range kLayers{1, 100000};
inline constexpr Range kHidden{1, 1e7};
inline constexpr Range kHeads{1, 1e5};
inline constexpr Range kSeqLen{1, 1e7};
inline constexpr Range kGpuMemoryGb{0, 1e5, true};     // a GPU's memory, GB (the largest today: 192)
inline constexpr Range kMemoryHeadroomGb{0, 1e5};       // GB per GPU kept from the model (CUDA context, fragmentation)
inline constexpr Range kComputeScale{0.001, 1000};      // a node's or GPU's compute speed over the topology's GPU
inline constexpr Range kLinkShare{1e-4, 1};             // share of a degraded link's capacity that still works
inline constexpr Range kStragglerCv{0, 10};             // coefficient of variation of per-step compute time
inline constexpr Range kVocab{1, 1e9};
inline constexpr Range kTensors{1, 1e7};
inline constexpr Range kFlopsPerSample{0, 1e21, true};
inline constexpr Range kBytesPerValue{0.0625, 8};      // 1/16 byte (a 0.5-bit code) .. fp64
inline constexpr Range kComputeMs{0, 1e7, true};        // one micro-batch's forward or backward
inline constexpr Range kOptimizerS{0, 1e5, true};       // one optimizer step
inline constexpr Range kBucketMb{0.001, 1e5};           // a gradient bucket (PyTorch DDP: 25 MB; Megatron: 40M params)
inline constexpr Range kZeroStage{0, 3};                // ZeRO stage (Rajbhandari et al. 2020 §5): 0 = none .. 3 = weights
// --- workload architecture (the derived parameter count must also stay within kParams)
inline constexpr Range kHeadDim{1, 65536};              // Llama: 128
inline constexpr Range kFfnHidden{1, 1e8};              // FFN width per expert (Llama-3.1-405B: 53,248)
inline constexpr Range kExperts{1, 65536};              // experts per MoE layer, and top_k (DeepSeek-V3: 256, top 8)

// --- run shape (flags and experiment keys)
inline constexpr Range kGpus{1, static_cast<double>(limits::kMaxGpus)};
inline constexpr Range kBatch{1, 16777216};             // 2^24 samples per step
inline constexpr Range kParallelDegree{1, 1024};        // tp, pp, ep
inline constexpr Range kMicroBatches{1, 1048576};
inline constexpr Range kJobs{1, 256};
inline constexpr Range kTimeLimitS{0, 1e8, true};         // --time-limit: (0 s, ~3 years]
inline constexpr Range kEpochSamples{1, 1e15};
inline constexpr Range kCollectiveBytes{1, 1099511627776.0}; // ccsim collective -b/-e: up to 1 TiB per buffer
inline constexpr Range kStepFactor{1, 1024};                 // ccsim collective -f

// --- ccsim train and bench-kernels
inline constexpr Range kWorkers{1, 1024};             // in-process workers, each holding a model copy
inline constexpr Range kSteps{1, 10000000};
inline constexpr Range kTrainBatch{1, 1048576};
inline constexpr Range kSeed{0, 9007199254740992.0}; // 2^53: every seed survives a round trip through JSON doubles
inline constexpr Range kBenchBytes{4096, 4294967296.0}; // 4 GiB of input (the kernels allocate ~3x)
inline constexpr Range kRepeats{1, 1000};
} // namespace range

} // namespace ccsim::io
