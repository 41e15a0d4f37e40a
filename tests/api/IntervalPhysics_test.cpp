// Issue 48: every preset x every algorithm's likely ranges stay inside physics and are one interval seen three ways.
// The check is independent of api/run/Intervals.cpp's arithmetic: it reads the preset's peaks from its JSON file and
// tests the printed ranges against them and against each other.
#include "api/run/Metrics.hpp"
#include "api/run/Simulation.hpp"
#include "algorithms/Registry.hpp"
#include "io/JsonInput.hpp"
#include "io/Presets.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

using namespace ccsim::api;

namespace {
/// The dense FLOP/s the preset's GPU states for 16-bit GEMMs (what a GPT without a precision of its own runs): its
/// gpu.compute.tensor_tflops for bf16, or fp16 where it has no bf16 (V100), else gpu.peak_tflops, else (a placeholder
/// GPU that times communication only, w1-ring100g) its one sustained rate, the fastest it ever computes
/// (topologies/SCHEMA.md).
double peak_16bit_flops(const std::string& path)
{
  const auto doc  = ccsim::io::read_json_file(path);
  const auto& gpu = doc.at("gpu");
  if (gpu.contains("compute")) {
    const auto& peaks = gpu.at("compute").at("tensor_tflops");
    for (const char* format : {"bf16", "fp16"})
      if (peaks.contains(format))
        return peaks.at(format).get<double>() * 1e12;
  }
  return gpu.value("peak_tflops", gpu.value("sustained_tflops", 0.0)) * 1e12;
}
} // namespace

TEST_CASE("IntervalPhysics: every preset and algorithm - TFLOP/s within the GPU's peak, one interval three ways",
          "[api]")
{
  int runs = 0, bounded = 0;
  for (const auto& preset : ccsim::io::list_presets("topologies")) {
    const double peak = peak_16bit_flops(preset.path);
    for (const auto* algo : ccsim::algorithms::registered_algorithms()) {
      // A small GPT over two nodes (inter-node traffic), pipelined algorithms over two stages: the first shape the
      // algorithm accepts on this preset runs; an algorithm that takes neither is skipped (counted below).
      const auto doc = ccsim::io::read_json_file(preset.path);
      const int per_node = doc.value("gpus_per_node", 1);
      std::optional<SimulationReport> report;
      for (const int pp : {1, 2}) {
        SimulateRequest req;
        req.topology  = preset.name;
        req.workload  = "gpt-350m";
        req.algorithm = algo->name;
        req.gpus      = std::max(2 * per_node, 2 * pp);
        req.pp        = pp;
        req.allow_oom = true;
        try {
          report = run_simulation_isolated(req); // SimGrid runs once per process: each run in a child
          break;
        } catch (const std::exception&) {
        }
      }
      if (!report)
        continue;
      ++runs;
      INFO(preset.name << " x " << algo->name);
      const auto& iv      = report->intervals;
      const auto& step    = iv.at(Metric::STEP_TIME_S);
      const auto& samples = iv.at(Metric::SAMPLES_PER_S);
      const auto& tflops  = iv.at(Metric::TFLOPS_PER_GPU);
      const double batch  = report->samples_per_s * report->step_time_s;
      // One interval: samples/s = batch / step and TFLOP/s = its FLOPs / step, at both ends.
      CHECK(samples.low * step.high == Approx(batch).epsilon(1e-9));
      CHECK(samples.high * step.low == Approx(batch).epsilon(1e-9));
      CHECK(tflops.low * step.high == Approx(report->tflops_per_gpu * report->step_time_s).epsilon(1e-9));
      CHECK(tflops.high * step.low == Approx(report->tflops_per_gpu * report->step_time_s).epsilon(1e-9));
      CHECK(step.low <= report->step_time_s);
      CHECK(step.high >= report->step_time_s);
      // Physics: no TFLOP/s above the GPU's 16-bit peak (so no step shorter than its FLOPs at that peak).
      REQUIRE(peak > 0);
      CHECK(report->tflops_per_gpu <= peak / 1e12);
      CHECK(tflops.high <= peak / 1e12 * (1 + 1e-9));
      if (step.why.find("dense peak") != std::string::npos)
        ++bounded;
    }
  }
  // 21 presets x the registry's algorithms: most combinations run (a sharded or pipelined algorithm may refuse a
  // preset's shape); some ranges reach the peak (a small model's range on a fast GPU is wide enough to).
  CHECK(runs >= 200);
  CHECK(bounded > 0);
}
