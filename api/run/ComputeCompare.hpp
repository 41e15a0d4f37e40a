#pragma once
// `ccsim bench-compute --compare FILE --topology T [--fit]` (issue 46): a measurement document of bench-compute (with,
// where a device run added them, FlashAttention and whole-layer timings: scripts/device/merge-measurements.py) against
// the per-operator model on the topology's GPU, kernel by kernel; and the GPU's compute constants fitted to it.

#include "api/run/ComputeMeasurement.hpp"
#include "sim/platform/Topology.hpp"

#include <nlohmann/json.hpp>

namespace ccsim::api {

/// The GPU's compute constants refitted on a measurement: memory_efficiency from the element-wise kernels (their
/// median share of gpu.memory_gbps), launch_s from the measured launch gap, flash efficiencies from the attention
/// rows (the median over them), and per format gemm_efficiency with tile_overhead_s and l2_bytes_per_s by least squares
/// of log(model / measured) over every GEMM row (coordinate descent, golden-section steps). Throws io::InputError
/// naming the measurement's file when it lacks what a constant needs.
sim::GpuCompute fit_compute(const ComputeMeasurement& measured, const sim::GpuSpec& gpu);

/// Every measured kernel beside the model's time on `gpu` (and on `fitted` where given): rows, per-format and
/// per-size summaries (median measured/model and median |error|), the layers' forward + backward times.
nlohmann::json compare_compute(const ComputeMeasurement& measured, const sim::GpuSpec& gpu, const sim::GpuSpec* fitted);

/// The constants fit_compute sets, under their gpu.compute keys (topologies/SCHEMA.md), ready to paste into a topology.
nlohmann::json compute_json(const sim::GpuCompute& c);

/// What `ccsim bench-compute --format json` prints: without `compare`, the measurement (measure_compute with `quick`
/// and `trials`); with it, that file compared on the GPU of the topology at `topology_path`, and with `fit` the refit
/// beside it and its block as `fitted_compute`.
nlohmann::json run_bench_compute(const std::string& compare, const std::string& topology_path, bool fit, bool quick,
                                 int trials);

/// A GPU with `compute` in place of its compute block.
sim::GpuSpec with_compute(const sim::GpuSpec& gpu, const sim::GpuCompute& compute);

} // namespace ccsim::api
