#pragma once
// One `ccsim simulate` run as a library call, so `simulate`, `experiment` and `advise` share it.
// SimGrid's Engine is one per process: run_simulation_isolated() forks, simulates in the child and
// returns the child's JSON document (or rethrows its InputError) in the parent.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

namespace ccsim::cli {

struct SimulateRequest {
  std::string topology;  // preset name or path
  std::string workload;  // preset name or path
  std::string algorithm; // registered name
  int gpus = 0;
  std::optional<std::uint64_t> global_batch;
  std::optional<std::uint64_t> micro_batch;
  std::optional<int> tp;
  std::optional<int> pp;
  std::optional<double> bandwidth_gbps; // overrides the inter-node bandwidth
  std::optional<double> latency_us;     // overrides the inter-node latency
  std::optional<std::string> network_model; // "rdma" | "tcp": overrides the topology's choice
  std::map<std::string, std::string> params; // --param key=value (algorithm and workload overrides)
  std::string fidelity = "fast";             // "exact" | "fast"
  bool links = false;                        // add the busiest-links report and the per-link load over time
  bool trace = false;                        // add "trace": Chrome trace events of one step per phase
  bool allow_oom = false;                    // simulate a run that does not fit the GPUs' memory (gpu.memory_gb)
  std::map<int, double> slow_gpus;           // --slow-gpu RANK:FACTOR: compute speed of single GPUs
  double straggler_cv = 0;                   // --straggler-cv: per-step lognormal compute noise of every GPU
  std::uint64_t straggler_seed = 1;          // --straggler-seed
};

/// Runs one simulation in this process and returns the `simulate --format json` document.
/// Only call it in a process that has not created a SimGrid Engine yet. Bad input throws io::InputError.
nlohmann::json run_simulation(const SimulateRequest& request);

/// Progress of a simulation: messages simulated so far of those planned (sim/MessageCount.hpp).
using ProgressFn = std::function<void(std::uint64_t done, std::uint64_t total)>;

/// The same, in a forked child: safe to call many times from one process. Rethrows the child's
/// InputError (same one-line message) and turns a crashed child into std::runtime_error; relays progress as
/// await_isolated does, and throws RunStopped on a signal or past the time limit.
nlohmann::json run_simulation_isolated(const SimulateRequest& request, const ProgressFn& on_progress = {});

/// A simulation running in a forked child; its answer arrives on `fd`, its progress on `progress_fd`.
/// The child dies with ccsim (PR_SET_PDEATHSIG) and is killed by ccsim's SIGINT / SIGTERM handler (cli/RunControl.hpp).
struct IsolatedRun {
  int pid = -1;
  int fd = -1;          // the child's answer (JSON)
  int err_fd = -1;      // the child's stderr (an anonymous file), read only to explain a crash
  int progress_fd = -1; // lines "DONE TOTAL\n" (messages simulated, messages planned), at most 4 a second
};
/// Forks a child that runs `request` and writes its answer to the returned pipe.
IsolatedRun start_isolated(const SimulateRequest& request);
/// The same for any simulation: the child runs `work` (which may throw io::InputError) and sends its document.
IsolatedRun start_isolated_work(const std::function<nlohmann::json()>& work);
/// Reads the child's whole answer (blocking), reaps it, and returns or rethrows as run_simulation_isolated does.
/// A child that gave no answer because ccsim is stopping (a signal killed it) throws RunStopped instead.
nlohmann::json finish_isolated(const IsolatedRun& run);
/// Waits for the child's answer while relaying its progress to `on_progress` (also called every 0.25 s without news,
/// so a progress line's clock keeps moving) and watching for a stop: a signal or the time limit kills the child and
/// throws RunStopped (cli/RunControl.hpp) with an empty progress note.
nlohmann::json await_isolated(const IsolatedRun& run, const ProgressFn& on_progress = {});
/// Kills the child, reaps it and closes its pipes (a run that is no longer wanted).
void abandon_isolated(const IsolatedRun& run);

/// In a simulation child: tells the parent how far the simulation is (throttled to 4 a second; never blocks).
/// A no-op in any other process.
void report_child_progress(std::uint64_t done, std::uint64_t total);

} // namespace ccsim::cli
