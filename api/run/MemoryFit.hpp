#pragma once
// Whether a run fits its GPUs' memory, as a verdict with the numbers it was reached from: the bytes per GPU without
// and with activation recomputation (algorithms/MemoryFootprint.hpp) against the topology's gpu.memory_gb. The text
// users read ("yes", "with activation recomputation", "no", "unknown (...)") is derived from the verdict, never kept
// as state; memory_verdict_named reads it back.

#include <optional>
#include <string>

namespace ccsim::api {

enum class MemoryVerdict {
  FITS,                    // without activation recomputation
  FITS_WITH_RECOMPUTATION, // only when every layer's activations are recomputed in backward
  DOES_NOT_FIT,            // not even then (a run is refused unless --allow-oom)
  UNKNOWN,                 // the topology gives no GPU memory
};

/// In GB (1e9 bytes), as reports give memory.
struct MemoryFit {
  MemoryVerdict verdict = MemoryVerdict::UNKNOWN;
  double gb_without_recomputation = 0;
  double gb_with_recomputation    = 0;
  std::optional<double> capacity_gb; // the topology's gpu.memory_gb
  /// What of capacity_gb the model cannot use (CUDA context, allocator fragmentation: gpu.memory_headroom_gb or
  /// --memory-headroom-gb); a run fits when it needs at most capacity_gb - headroom_gb.
  double headroom_gb = 0;
  bool fits() const { return verdict == MemoryVerdict::FITS || verdict == MemoryVerdict::FITS_WITH_RECOMPUTATION; }
};

/// The verdict for a run that needs `bytes_without` (`bytes_with`) per GPU without (with) activation recomputation on
/// GPUs of `capacity_bytes` (none: UNKNOWN) of which `headroom_bytes` are not the model's. Compared in bytes, so the
/// verdict is exactly the comparison of the memory model's numbers; the GB are those bytes / 1e9.
MemoryFit judge_memory(double bytes_without, double bytes_with, std::optional<double> capacity_bytes,
                       double headroom_bytes = 0);

/// "yes", "with activation recomputation", "no" or "unknown (the topology has no gpu.memory_gb)".
std::string to_string(MemoryVerdict verdict);
/// The verdict of one of those texts; empty for any other.
std::optional<MemoryVerdict> memory_verdict_named(const std::string& text);

} // namespace ccsim::api
