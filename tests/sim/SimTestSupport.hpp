#pragma once
// Simulation tests: SimGrid's Engine is one per process, so every simulation runs in a forked child that
// sends its measured numbers back through a pipe.

#include "sim/engine/StepEngine.hpp"
#include "sim/platform/Platform.hpp"

#include <simgrid/s4u.hpp>

#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace ccsim::test {

/// Runs `f` in a child process and returns the doubles it produced (empty if the child failed).
inline std::vector<double> in_child(const std::function<std::vector<double>()>& f)
{
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  std::fflush(nullptr); // the child must not print the parent's pending output again
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    std::vector<double> out;
    try {
      out = f();
    } catch (...) {
      _exit(3);
    }
    const auto bytes = static_cast<ssize_t>(out.size() * sizeof(double));
    _exit(write(fds[1], out.data(), static_cast<std::size_t>(bytes)) == bytes ? 0 : 4);
  }
  close(fds[1]);
  std::vector<double> out;
  double value = 0;
  while (read(fds[0], &value, sizeof value) == static_cast<ssize_t>(sizeof value))
    out.push_back(value);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  return out;
}

/// In a child (in_child): SimGrid's engine with `topo`'s network model, for a test that builds a platform itself.
inline std::unique_ptr<simgrid::s4u::Engine> engine_for(const sim::Topology& topo)
{
  int argc     = 1;
  char name[]  = "test";
  char* argv[] = {name, nullptr};
  auto engine  = std::make_unique<simgrid::s4u::Engine>(&argc, argv);
  sim::configure_network_model(topo);
  return engine;
}

/// An alpha-beta cluster: `gpus_per_node` GPUs per node on fast ports, one NIC per node.
inline sim::Topology rdma_cluster(int gpus_per_node, int nodes, double nic_gbps, double nic_latency_us,
                                  double intra_gbps = 10000, double intra_latency_us = 0.5)
{
  sim::Topology t;
  t.name                    = "test";
  t.gpu.name                = "TEST";
  t.gpu.sustained_flops     = 1e15;
  t.gpu.memory_bytes_per_s  = 1e12;
  t.gpus_per_node           = gpus_per_node;
  t.max_nodes               = nodes;
  t.intra_bytes_per_s       = intra_gbps * 1e9 / 8;
  t.intra_latency_s         = intra_latency_us * 1e-6;
  t.nic_bytes_per_s         = nic_gbps * 1e9 / 8;
  t.nic_nominal_bytes_per_s = t.nic_bytes_per_s;
  t.nic_latency_s           = nic_latency_us * 1e-6;
  t.network_model           = sim::NetworkModel::RDMA;
  return t;
}

/// A workload with no compute, so a step is its communication alone.
inline sim::Workload no_compute()
{
  sim::Workload w;
  w.name             = "none";
  w.params           = 1000;
  w.seq_len          = 1;
  w.flops_per_sample = 0;
  return w;
}

/// A workload whose pipeline stages (of `pp`) take `forward_s` and `backward_s` per one-sample micro-batch.
inline sim::Workload stage_workload(int pp, double forward_s, double backward_s)
{
  sim::Workload w = no_compute();
  w.compute.push_back({"TEST", 1, 1, 1, pp, forward_s, backward_s, "", "test"});
  return w;
}

/// pp stages x dp chains, one GPU per node, m micro-batches of one sample per step.
inline sim::StepShape pipeline_shape(int pp, int dp, int m)
{
  sim::StepShape s;
  s.gpus = pp * dp, s.pp = pp, s.dp = dp, s.tp = 1, s.gpus_per_node = 1, s.micro_batch = 1;
  s.global_batch = static_cast<std::uint64_t>(dp * m), s.grad_accumulation = m, s.seq_len = 1;
  return s;
}

inline sim::StepShape dp_shape(int gpus, int gpus_per_node, int tp = 1)
{
  sim::StepShape s;
  s.gpus = gpus;
  s.tp   = tp;
  s.dp   = gpus / tp;
  s.gpus_per_node = gpus_per_node;
  s.micro_batch = 1;
  s.global_batch = static_cast<std::uint64_t>(s.dp);
  s.grad_accumulation = 1;
  return s;
}

/// Simulated seconds of one collective on every group of `kind`.
inline double time_collective(const sim::Topology& topo, const sim::StepShape& shape, sim::Collective c,
                              std::uint64_t bytes, sim::Fidelity fidelity, sim::Algo algo = sim::Algo::AUTO,
                              sim::GroupKind kind = sim::GroupKind::DATA_PARALLEL)
{
  const auto out = in_child([&] {
    sim::CommOp op{"test", c, kind, bytes};
    op.algo = algo;
    sim::StepPlan plan{{sim::PhasePlan{"p", 1.0, {op}, std::nullopt}}};
    const auto r = sim::simulate_step(topo, no_compute(), plan, shape, fidelity, false);
    return std::vector<double>{r.phases.at(0).step_time_s};
  });
  REQUIRE(out.size() == 1);
  return out[0];
}

/// One pipelined step: step time, forward and backward message times, inter-node bytes per GPU, events, and the
/// bytes of the busiest links, with the reduction on or off. Exact fidelity: the reductions are the event-by-event
/// schedule's (fast fidelity computes the pipeline in closed form, tests/sim/PipelineClosedForm_test.cpp). `blocking`:
/// each stage waits for its sends (sim::PipelineComm::blocking_sends).
inline std::vector<double> pipeline_step(const sim::Topology& topo, int dp, int tp, int pp, int m, bool reduce,
                                  sim::Fidelity fidelity = sim::Fidelity::EXACT, bool blocking = false)
{
  sim::Workload w = no_compute();
  w.compute.push_back({"TEST", 1, 1, tp, pp, 0.002, 0.004, "", "test"});
  sim::StepShape s;
  s.gpus = dp * tp * pp, s.pp = pp, s.dp = dp, s.tp = tp, s.gpus_per_node = topo.gpus_per_node, s.micro_batch = 1;
  s.global_batch = static_cast<std::uint64_t>(dp * m), s.grad_accumulation = m, s.seq_len = 1;
  return in_child([&] {
    setenv("CCSIM_SYMMETRY", reduce ? "on" : "off", 1);
    sim::PhasePlan phase{"pipe", 1.0, {}, sim::PipelineComm{6000000, 3000000, {}, blocking}};
    sim::StepOptions options;
    options.busiest_links = true;
    const auto r = sim::simulate_step(topo, w, sim::StepPlan{{phase}}, s, fidelity, options);
    const auto& p = r.phases.at(0);
    std::vector<double> out{p.step_time_s, p.pipeline_forward_comm_s, p.pipeline_backward_comm_s,
                            p.inter_node_bytes_per_gpu, p.intra_node_bytes_per_gpu, static_cast<double>(r.events)};
    for (const auto& l : r.links)
      out.push_back(l.bytes);
    return out;
  });
}

} // namespace ccsim::test
