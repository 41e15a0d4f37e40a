// Reading a topology's gpu.compute block: every number checked in its range at its own JSON path.
#include "sim/platform/GpuComputeJson.hpp"

#include <fmt/format.h>

namespace ccsim::sim {

namespace {
constexpr double TFLOPS = 1e12;
constexpr double GBPS   = 1e9; // GB/s of memory-side bandwidth (10^9 bytes/s), as gpu.memory_gbps

/// The number formats named as keys of `o` ({"bf16": x, ...}, notes skipped), each read in `range`.
std::map<Precision, double> per_precision(const io::JsonObject& o, const io::Range& range)
{
  std::map<Precision, double> out;
  for (const auto& [key, value] : o.raw().items()) {
    if (io::is_note_key(key))
      continue;
    const auto p = parse_precision(key);
    if (!p)
      o.fail_at(key, "not a number format: use tf32, fp16, bf16 or fp8");
    out[*p] = o.number_in(key, range);
  }
  if (out.empty())
    o.fail("needs at least one number format (bf16, fp16, fp8 or tf32)");
  return out;
}
} // namespace

GpuCompute gpu_compute_from_json(const io::JsonObject& block)
{
  block.allow_only({"sms", "tensor_tflops", "gemm_efficiency", "tiles", "tile_overhead_us", "l2_gbps", "launch_us",
                    "flash_attention", "memory_efficiency", "framework_efficiency"});
  namespace range = io::range;
  GpuCompute c;
  c.sms                = static_cast<int>(block.integer_in("sms", range::kSms));
  const auto peaks     = per_precision(block.object("tensor_tflops"), range::kTflops);
  const auto eff_block = block.object("gemm_efficiency");
  const auto effs      = per_precision(eff_block, range::kFraction);
  for (const auto& [p, peak] : peaks) {
    const auto e = effs.find(p);
    if (e == effs.end())
      eff_block.fail(fmt::format("no efficiency for {}, which tensor_tflops lists", to_string(p)));
    c.rates[p] = TensorRate{peak * TFLOPS, e->second};
  }
  for (const auto& [p, eff] : effs)
    if (!peaks.count(p))
      eff_block.fail_at(to_string(p), "tensor_tflops has no peak for this format");

  const auto tiles = block.objects("tiles");
  if (static_cast<double>(tiles.size()) < range::kTileCount.lo || static_cast<double>(tiles.size()) > range::kTileCount.hi)
    block.fail_at("tiles", fmt::format("needs {:g} to {:g} tiles (got {})", range::kTileCount.lo, range::kTileCount.hi,
                                       tiles.size()));
  for (const auto& t : tiles) {
    t.allow_only({"m", "n"});
    c.tiles.push_back({static_cast<int>(t.integer_in("m", range::kTileDim)),
                       static_cast<int>(t.integer_in("n", range::kTileDim))});
  }
  c.tile_overhead_s = block.number_in("tile_overhead_us", range::kTileOverheadUs) * 1e-6;
  c.l2_bytes_per_s  = block.number_in("l2_gbps", range::kL2Gbps) * GBPS;
  c.launch_s        = block.number_in("launch_us", range::kLaunchUs) * 1e-6;
  const auto flash  = block.object("flash_attention");
  flash.allow_only({"forward", "backward"});
  c.flash_forward_efficiency  = flash.number_in("forward", range::kFraction);
  c.flash_backward_efficiency = flash.number_in("backward", range::kFraction);
  c.memory_efficiency         = block.number_in("memory_efficiency", range::kFraction);
  if (block.has("framework_efficiency")) {
    const auto f = block.object("framework_efficiency");
    for (const auto& [key, value] : f.raw().items()) {
      if (io::is_note_key(key))
        continue;
      if (key == REFERENCE_FRAMEWORK)
        f.fail_at(key, fmt::format("is the stack these constants were fitted on: its share is 1 by definition"));
      if (!is_known_framework(key))
        f.fail_at(key, fmt::format("not a training stack ccsim knows: use {}", known_frameworks().back()));
      c.framework_efficiency[key] = f.number_in(key, range::kFrameworkEfficiency);
    }
    c.framework_efficiency_source = f.string_or("source", "");
  }
  c.source                    = block.string_or("source", "");
  return c;
}

} // namespace ccsim::sim
