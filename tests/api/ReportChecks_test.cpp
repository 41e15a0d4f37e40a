// check_report on a hand-built report whose every number is worked out below: consistent, it passes; each damage a
// hand edit or a torn line could do is named (issue 33: a resumed log must never feed a wrong number into results).
#include "api/run/ReportChecks.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <limits>

using ccsim::api::check_report;
using ccsim::api::SimulationReport;

namespace {
/// A 1-bit-Adam-like run: a warm-up phase for a quarter of the steps (2 s per step), a compressed phase for the rest
/// (1 s per step), global batch 64 on 8 GPUs (dp 4 x tp 2 x pp 1, micro-batch 8, accumulation 2).
///   step time     = 0.25 x 2 + 0.75 x 1 = 1.25 s, samples/s = 64 / 1.25 = 51.2 (phases: 32 and 64)
///   compute_s     = 0.25 x 0.8 + 0.75 x 0.8 = 0.8;  comm_s = 0.25 x 1.6 + 0.75 x 0.4 = 0.7
///   allreduce_ms  = 0.25 x 1200 + 0.75 x 200 = 450; inter-node bytes = 0.25 x 4e9 + 0.75 x 1e9 = 1.75e9
///   memory        = states 1 + 2 + 3 + 0.5 = 6.5 GB, + max(activations 4, temporaries 1) = 10.5 without
///                   recomputation, + max(1.5, 1) = 8 with it; the run does not recompute: 10.5 per GPU.
SimulationReport consistent()
{
  SimulationReport r;
  r.step_time_s    = 1.25;
  r.samples_per_s  = 51.2;
  r.tflops_per_gpu = 12;
  r.breakdown      = {0.8, 0.7, 0.5, 0, 0.1, 450};
  r.bytes_per_gpu  = {1.75e9, 0};
  ccsim::api::PhaseResult warm{"warmup", 0.25, 2, 32, {0.8, 1.6, 1.1, 0, 0.1, 1200}, 0, 0, {4e9, 0}};
  ccsim::api::PhaseResult comp{"compressed", 0.75, 1, 64, {0.8, 0.4, 0.3, 0, 0.1, 200}, 0, 0, {1e9, 0}};
  r.phases = {warm, comp};
  // exposed_comm_s: 0.25 x 1.1 + 0.75 x 0.3 = 0.5
  auto& m                         = r.memory;
  m.weights_gb                    = 1;
  m.gradients_gb                  = 2;
  m.optimizer_states_gb           = 3;
  m.compression_buffers_gb        = 0.5;
  m.activations_gb                = 4;
  m.activations_recomputed_gb     = 1.5;
  m.optimizer_step_temporaries_gb = 1;
  m.fit.gb_without_recomputation  = 10.5;
  m.fit.gb_with_recomputation     = 8;
  r.memory_gb_per_gpu             = 10.5;
  auto& c                         = r.config;
  c.algorithm                     = "onebit-adam";
  c.gpus = 8, c.dp = 4, c.tp = 2, c.pp = 1, c.nodes = 2;
  c.global_batch      = 64;
  c.micro_batch       = 8;
  c.grad_accumulation = 2;
  c.inter_node_gbps   = 100;
  r.fidelity          = "fast";
  return r;
}

std::string problem_after(const std::function<void(SimulationReport&)>& damage)
{
  auto r = consistent();
  damage(r);
  return check_report(r);
}
} // namespace

TEST_CASE("check_report: a consistent report passes", "[api]")
{
  CHECK(check_report(consistent()).empty());
}

TEST_CASE("check_report: a negative - zero - huge - non-finite value is named with its field", "[api]")
{
  CHECK(problem_after([](auto& r) { r.samples_per_s = -1; }) == "samples_per_s -1 is not positive");
  CHECK(problem_after([](auto& r) { r.samples_per_s = 0; }) == "samples_per_s 0 is not positive");
  CHECK(problem_after([](auto& r) { r.step_time_s = -3; }) == "step_time_s -3 is not positive");
  CHECK(problem_after([](auto& r) { r.breakdown.comm_s = std::nan(""); }) == "breakdown.comm_s is not a finite number");
  CHECK(problem_after([](auto& r) { r.phases[1].bytes_per_gpu.inter_node = -1; }) ==
        "phases/1.bytes_per_gpu.inter_node -1 is negative");
  CHECK(problem_after([](auto& r) { r.tflops_per_gpu = std::numeric_limits<double>::infinity(); }) ==
        "tflops_per_gpu is not a finite number");
  // 1e30 samples/s is finite and positive, but not 64 / 1.25.
  CHECK(problem_after([](auto& r) { r.samples_per_s = 1e30; }) ==
        "samples_per_s 1e+30 is not global_batch / step_time_s = 51.2");
}

TEST_CASE("check_report: phases must exist - add up to the whole run - and each match its own throughput", "[api]")
{
  CHECK(problem_after([](auto& r) { r.phases.clear(); }) == "phases: none (every run has at least one)");
  CHECK(problem_after([](auto& r) { r.phases[0].fraction = 0.5; }) == "phases: the fractions sum to 1.25, not 1");
  CHECK(problem_after([](auto& r) { r.phases[0].fraction = 1.5; }) == "phases/0.fraction 1.5 is above 1");
  CHECK(problem_after([](auto& r) { r.phases[1].samples_per_s = 60; }) ==
        "phases/1.samples_per_s 60 is not global_batch / step_time_s = 64");
  // Doubling the whole-run step time alone: 2.5 is not 0.25 x 2 + 0.75 x 1.
  CHECK(problem_after([](auto& r) { r.step_time_s = 2.5; }) ==
        "step_time_s 2.5 is not the fraction-weighted phase value = 1.25");
  CHECK(problem_after([](auto& r) { r.breakdown.allreduce_ms = 900; }) ==
        "breakdown.allreduce_ms 900 is not the fraction-weighted phase value = 450");
  CHECK(problem_after([](auto& r) { r.bytes_per_gpu.inter_node = 3.5e9; }) ==
        "bytes_per_gpu.inter_node 3500000000 is not the fraction-weighted phase value = 1750000000");
}

TEST_CASE("check_report: the run's shape and memory must add up", "[api]")
{
  CHECK(problem_after([](auto& r) { r.config.dp = 3; }) == "config.gpus 8 is not dp x tp x pp = 3 x 2 x 1");
  CHECK(problem_after([](auto& r) { r.config.global_batch = 65; }) ==
        "config.global_batch 65 is not dp x micro_batch x grad_accumulation = 4 x 8 x 2");
  CHECK(problem_after([](auto& r) { r.config.micro_batch = 0; }).rfind("config: gpus 8, dp 4", 0) == 0);
  CHECK(problem_after([](auto& r) { r.memory_gb_per_gpu = 8; }) ==
        "memory_gb_per_gpu 8 is not the memory of the run's recomputation choice = 10.5");
  CHECK(problem_after([](auto& r) { r.memory.weights_gb = 2; }) ==
        "memory.gb_without_recomputation 10.5 is not states + max(activations, optimizer_step_temporaries) = 11.5");
}
