// `simulate` as a library call: resolve presets, apply overrides, check the configuration is possible,
// ask the algorithm for its plan, run the step engine, and shape the result as DESIGN.md's JSON.
#include "cli/Simulation.hpp"

#include "cli/OutputFile.hpp"
#include "cli/RunControl.hpp"
#include "cli/StepTraceJson.hpp"

#include "algorithms/MemoryFootprint.hpp"
#include "algorithms/PlanAlgorithm.hpp"
#include "sim/Stragglers.hpp"
#include "sim/MessageCount.hpp"
#include "sim/StepEngine.hpp"
#include "sim/io/JsonInput.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <fcntl.h>
#include <poll.h>
#include <mutex>
#include <stdexcept>
#include <sys/mman.h>
#include <thread>
#include <sys/wait.h>
#include <unistd.h>

namespace ccsim::cli {

namespace {
// --param keys that change the workload rather than the algorithm.
const std::vector<std::string> WORKLOAD_PARAMS = {"seq_len", "micro_batches"};

std::string known_algorithms()
{
  std::string s;
  for (const auto* a : algorithms::plan_algorithms())
    s += (s.empty() ? "" : ", ") + a->name();
  return s.empty() ? "none" : s;
}

nlohmann::json phase_json(const sim::PhaseReport& r, double samples)
{
  return {{"name", r.name},
          {"fraction", r.fraction},
          {"step_time_s", r.step_time_s},
          {"samples_per_s", r.step_time_s > 0 ? samples / r.step_time_s : 0},
          {"breakdown",
           {{"compute_s", r.compute_s},
            {"comm_s", r.comm_s},
            {"exposed_comm_s", r.exposed_comm_s},
            {"compression_s", r.compression_s},
            {"optimizer_s", r.optimizer_s},
            {"allreduce_ms", r.allreduce_s * 1e3},
            {"pipeline_forward_comm_ms", r.pipeline_forward_comm_s * 1e3},
            {"pipeline_backward_comm_ms", r.pipeline_backward_comm_s * 1e3}}},
          {"bytes_per_gpu", {{"inter_node", r.inter_node_bytes_per_gpu}, {"intra_node", r.intra_node_bytes_per_gpu}}}};
}
} // namespace

nlohmann::json run_simulation(const SimulateRequest& req)
{
  // --- inputs
  const std::string topo_file = io::resolve_preset("topologies", req.topology, "--topology");
  sim::Topology topo          = sim::load_topology(topo_file);
  sim::Workload work = sim::load_workload(io::resolve_preset("workloads", req.workload, "--workload"));
  const auto* algo   = algorithms::find_plan_algorithm(req.algorithm);
  if (algo == nullptr)
    throw io::InputError("--algorithm", "",
                         fmt::format("unknown algorithm {} (known: {})", io::echo(req.algorithm), known_algorithms()));
  if (req.bandwidth_gbps) // both overrides range-check their value (sim/io/Limits.hpp)
    sim::override_inter_node_bandwidth(topo, *req.bandwidth_gbps);
  if (req.latency_us)
    sim::override_inter_node_latency(topo, *req.latency_us);
  if (req.network_model) {
    if (*req.network_model != "rdma" && *req.network_model != "tcp")
      throw io::InputError("--network-model", "", io::echo(*req.network_model) + " is not one of: rdma, tcp");
    topo.network_model = *req.network_model == "rdma" ? sim::NetworkModel::RDMA : sim::NetworkModel::TCP;
  }
  sim::Fidelity fidelity = sim::Fidelity::FAST;
  if (req.fidelity == "exact")
    fidelity = sim::Fidelity::EXACT;
  else if (req.fidelity != "fast")
    throw io::InputError("--fidelity", "", io::echo(req.fidelity) + " is not one of: exact, fast");

  // --- parameters: workload overrides, then the algorithm's own (unknown keys rejected)
  algorithms::ParamValues params = algorithms::default_params(*algo);
  std::optional<int> seq_len, micro_batches;
  for (const auto& [key, text] : req.params) {
    if (key == "seq_len" || key == "micro_batches") {
      const bool seq = key == "seq_len";
      (seq ? seq_len : micro_batches) = static_cast<int>(
          io::parse_integer(text, seq ? io::range::kSeqLen : io::range::kMicroBatches, "--param " + key));
      continue;
    }
    const auto specs = algo->param_specs();
    const std::string& name = key; // clang 14 cannot capture a structured binding in a lambda
    const auto spec  = std::find_if(specs.begin(), specs.end(), [&](const auto& s) { return s.key == name; });
    if (spec == specs.end()) {
      std::string accepted;
      for (const auto& spec : algo->param_specs())
        accepted += (accepted.empty() ? "" : ", ") + spec.key;
      for (const auto& k : WORKLOAD_PARAMS)
        accepted += (accepted.empty() ? "" : ", ") + k;
      throw io::InputError("--param", "", fmt::format("{} is not a parameter of {} (accepted: {})", io::echo(key),
                                                      req.algorithm, accepted));
    }
    params[key] = algorithms::check_param(*spec, io::parse_number(text, spec->range, "--param " + key));
  }

  // --- the run's shape, checked for possibility. Every count was range-checked where it was read (flags, experiment
  // keys: sim/io/Limits.hpp), so the products below fit in 64 bits; checked here again for library callers.
  io::check_range(req.gpus, io::range::kGpus, /*integer=*/true, "--gpus");
  if (req.tp)
    io::check_range(*req.tp, io::range::kParallelDegree, /*integer=*/true, "--tp");
  if (req.pp)
    io::check_range(*req.pp, io::range::kParallelDegree, /*integer=*/true, "--pp");
  if (req.global_batch)
    io::check_range(static_cast<double>(*req.global_batch), io::range::kBatch, /*integer=*/true, "--global-batch");
  if (req.micro_batch)
    io::check_range(static_cast<double>(*req.micro_batch), io::range::kBatch, /*integer=*/true, "--micro-batch");
  if (static_cast<std::int64_t>(req.gpus) > topo.max_gpus())
    throw io::InputError("--gpus", "", fmt::format("{} GPUs requested but topology {} has {} ({} nodes x {})", req.gpus,
                                                   topo.name, topo.max_gpus(), topo.max_nodes, topo.gpus_per_node));
  sim::StepShape s;
  s.gpus = req.gpus;
  s.tp   = req.tp.value_or(work.tp);
  s.pp   = req.pp.value_or(work.pp);
  if (algo->parallelism() != algorithms::Parallelism::PIPELINE && !req.pp)
    s.pp = std::min(s.pp, req.gpus);
  if (static_cast<std::int64_t>(s.tp) * s.pp > req.gpus)
    throw io::InputError(req.tp ? "--tp" : "--pp", "", fmt::format("tp x pp = {} x {} needs more than the {} GPUs",
                                                                   s.tp, s.pp, req.gpus));
  if (req.gpus % (s.tp * s.pp) != 0)
    throw io::InputError("--gpus", "", fmt::format("{} GPUs are not divisible by tp x pp = {} x {}", req.gpus, s.tp, s.pp));
  if (algo->parallelism() == algorithms::Parallelism::PIPELINE && s.pp < 2)
    throw io::InputError("--pp", "", fmt::format("{} is a pipeline algorithm: it needs --pp >= 2", req.algorithm));
  s.dp            = req.gpus / (s.tp * s.pp);
  s.gpus_per_node = topo.gpus_per_node;
  s.nodes         = (req.gpus + topo.gpus_per_node - 1) / topo.gpus_per_node;
  s.params        = work.params;
  s.params_per_rank = work.params / static_cast<std::uint64_t>(s.tp * s.pp);
  s.seq_len       = seq_len.value_or(work.seq_len);
  s.hidden        = work.hidden;
  s.layers        = work.layers;
  s.tensors       = work.tensors;
  s.grad_bytes    = work.grad_bytes;
  s.merge_node_pairs = fidelity == sim::Fidelity::FAST && topo.node_pair_flows_mergeable();
  const std::uint64_t dp = static_cast<std::uint64_t>(s.dp);
  // Which rule set the global batch, reported in config.batch_rule: the flag, the workload's fixed batch, or its run
  // rule that grows the batch with data parallelism (SDP4Bit's throughput runs, Appendix B).
  std::string batch_rule;
  if (req.global_batch) {
    s.global_batch = *req.global_batch;
    batch_rule     = "--global-batch";
  } else if (work.grad_accumulation > 0) {
    const std::uint64_t mb = req.micro_batch.value_or(work.micro_batch);
    s.global_batch         = dp * mb * static_cast<std::uint64_t>(work.grad_accumulation);
    batch_rule = fmt::format("workload run rule: dp x micro-batch x accumulation {} = {} x {} x {} ({})",
                             work.grad_accumulation, dp, mb, work.grad_accumulation, work.batch_source);
  } else {
    s.global_batch = work.global_batch;
    batch_rule     = fmt::format("workload default global batch {} ({})", work.global_batch, work.batch_source);
  }
  if (s.global_batch == 0)
    throw io::InputError("--global-batch", "", fmt::format("workload {} has no default batch: give --global-batch", work.name));
  if (micro_batches) {
    if (s.global_batch % (dp * *micro_batches) != 0)
      throw io::InputError("--param", "", fmt::format("micro_batches={}: global batch {} is not divisible by dp x micro_batches = {} x {}",
                                                      *micro_batches, s.global_batch, dp, *micro_batches));
    s.micro_batch = s.global_batch / (dp * *micro_batches);
  } else {
    s.micro_batch = req.micro_batch.value_or(work.micro_batch != 0 ? work.micro_batch : s.global_batch / dp);
  }
  if (s.micro_batch == 0 || s.global_batch % (dp * s.micro_batch) != 0)
    throw io::InputError("--global-batch", "",
                         fmt::format("global batch {} is not divisible by data-parallel GPUs x micro-batch = {} x {}",
                                     s.global_batch, dp, s.micro_batch));
  s.grad_accumulation = static_cast<int>(s.global_batch / (dp * s.micro_batch));
  {
    std::map<int, int> per_node;
    for (int d = 0; d < s.dp; ++d)
      per_node[(d * s.tp) / topo.gpus_per_node]++;
    s.dp_per_node = per_node.begin()->second;
  }

  // --- plan and simulate
  sim::StepPlan plan;
  try {
    plan = algo->plan(s, params);
  } catch (const std::invalid_argument& e) {
    throw io::InputError("--algorithm", "", fmt::format("{}: {}", req.algorithm, e.what()));
  }
  // --- memory: a run that does not fit even with activation recomputation is an error (unless --allow-oom)
  const auto mem          = algorithms::memory_footprint(*algo, work, s);
  const double need_plain = mem.total_bytes(false), need_recompute = mem.total_bytes(true);
  std::string fits        = "unknown (the topology has no gpu.memory_gb)";
  if (topo.gpu.memory_bytes) {
    const double cap = *topo.gpu.memory_bytes;
    fits = need_plain <= cap ? "yes" : need_recompute <= cap ? "with activation recomputation" : "no";
    if (fits == "no" && !req.allow_oom)
      throw io::InputError(
          topo_file, "/gpu/memory_gb",
          fmt::format("{} on {} with tp {} pp {} dp {} needs {:.1f} GB per GPU even with activation recomputation "
                      "(weights {:.1f}, gradients {:.1f}, optimizer {:.1f}, compression buffers {:.1f}, activations "
                      "{:.1f}) but the GPU has {:.0f} GB: raise --tp or --pp{}, or pass --allow-oom",
                      algo->name(), work.name, s.tp, s.pp, s.dp, need_recompute / 1e9, mem.weights_bytes / 1e9,
                      mem.gradients_bytes / 1e9, mem.optimizer_bytes / 1e9, mem.compression_bytes / 1e9,
                      mem.activations_recompute_bytes / 1e9, cap / 1e9,
                      algo->parallelism() == algorithms::Parallelism::SHARDED_DATA_PARALLEL ? ""
                                                                                            : ", use a sharded algorithm"));
  }
  const bool recompute = fits == "with activation recomputation";

  // --- stragglers: every GPU's compute speed (its node's, times its own) and the random per-step noise
  sim::StragglerModel stragglers;
  stragglers.cv   = io::check_range(req.straggler_cv, io::range::kStragglerCv, false, "--straggler-cv");
  stragglers.seed = req.straggler_seed;
  for (const auto& [node, o] : topo.nodes)
    if (o.compute_scale != 1)
      for (int g = node * topo.gpus_per_node; g < std::min(s.gpus, (node + 1) * topo.gpus_per_node); ++g)
        stragglers.rank_scale[g] = o.compute_scale;
  for (const auto& [rank, factor] : req.slow_gpus) {
    if (rank >= s.gpus)
      throw io::InputError("--slow-gpu", "", fmt::format("rank {} is not below --gpus {}", rank, s.gpus));
    stragglers.rank_scale[rank] = factor * (stragglers.rank_scale.count(rank) ? stragglers.rank_scale[rank] : 1);
  }
  const auto straggling = stragglers.active() ? sim::straggler_effect(stragglers, s.gpus) : sim::StragglerEffect{};

  sim::StepOptions options;
  options.compute_factor  = straggling.compute_factor;
  options.kernel_factor   = straggling.kernel_factor;
  if (stragglers.active()) {
    options.rank_inverse_scale = straggling.inverse_scale;
    options.noise_factor       = straggling.noise_factor;
  }
  options.busiest_links   = req.links;
  options.links_over_time = req.links || req.trace; // the trace's NIC counter tracks come from the same samples
  options.trace_spans     = req.trace;
  const std::uint64_t planned = sim::planned_messages(plan, s, fidelity);
  report_child_progress(0, planned);
  options.on_progress = [planned](std::uint64_t done) { report_child_progress(done, planned); };
  const auto report   = sim::simulate_step(topo, work, plan, s, fidelity, options);

  // --- the simulate JSON of DESIGN.md: whole-run averages weight each phase by its share of steps
  double total_fraction = 0, step = 0;
  for (const auto& p : report.phases)
    total_fraction += p.fraction;
  nlohmann::json phases = nlohmann::json::array();
  sim::PhaseReport avg;
  for (const auto& p : report.phases) {
    const double w = p.fraction / total_fraction;
    step += w * p.step_time_s;
    avg.compute_s += w * p.compute_s;
    avg.comm_s += w * p.comm_s;
    avg.exposed_comm_s += w * p.exposed_comm_s;
    avg.compression_s += w * p.compression_s;
    avg.optimizer_s += w * p.optimizer_s;
    avg.allreduce_s += w * p.allreduce_s;
    avg.inter_node_bytes_per_gpu += w * p.inter_node_bytes_per_gpu;
    avg.intra_node_bytes_per_gpu += w * p.intra_node_bytes_per_gpu;
    phases.push_back(phase_json(p, static_cast<double>(s.global_batch)));
  }
  const double samples_per_s = static_cast<double>(s.global_batch) / step;
  nlohmann::json doc = {
      {"samples_per_s", samples_per_s},
      {"step_time_s", step},
      {"tflops_per_gpu", samples_per_s * work.flops_per_sample * (static_cast<double>(s.seq_len) / work.seq_len) / s.gpus / 1e12},
      {"breakdown",
       {{"compute_s", avg.compute_s},
        {"comm_s", avg.comm_s},
        {"exposed_comm_s", avg.exposed_comm_s},
        {"compression_s", avg.compression_s},
        {"optimizer_s", avg.optimizer_s},
        {"allreduce_ms", avg.allreduce_s * 1e3},
        {"straggler_wait_s", 0.0}}},
      {"bytes_per_gpu", {{"inter_node", avg.inter_node_bytes_per_gpu}, {"intra_node", avg.intra_node_bytes_per_gpu}}},
      {"memory_gb_per_gpu", mem.total_bytes(recompute) / 1e9},
      {"memory",
       {{"fits", fits},
        {"capacity_gb", topo.gpu.memory_bytes ? nlohmann::json(*topo.gpu.memory_bytes / 1e9) : nlohmann::json(nullptr)},
        {"activation_recomputation", recompute},
        {"gb_without_recomputation", need_plain / 1e9},
        {"gb_with_recomputation", need_recompute / 1e9},
        {"breakdown_gb",
         {{"weights", mem.weights_bytes / 1e9},
          {"gradients", mem.gradients_bytes / 1e9},
          {"optimizer_states", mem.optimizer_bytes / 1e9},
          {"compression_buffers", mem.compression_bytes / 1e9},
          {"optimizer_step_temporaries", mem.step_transient_bytes / 1e9},
          {"activations", mem.activations_bytes / 1e9},
          {"activations_recomputed", mem.activations_recompute_bytes / 1e9}}},
        {"activations_note", mem.activations_note}}},
      {"phases", phases},
      {"config",
       {{"topology", topo.name},
        {"workload", work.name},
        {"algorithm", algo->name()},
        {"gpus", s.gpus},
        {"nodes", s.nodes},
        {"dp", s.dp},
        {"tp", s.tp},
        {"pp", s.pp},
        {"global_batch", s.global_batch},
        {"batch_rule", batch_rule},
        {"micro_batch", s.micro_batch},
        {"grad_accumulation", s.grad_accumulation},
        {"seq_len", s.seq_len},
        {"network_model", sim::to_string(topo.network_model)},
        {"inter_node_gbps", topo.node_uplink_bytes_per_s() * 8 / 1e9},
        {"params", params},
        {"compute_source", report.compute.source},
        {"forward_ms_per_micro_batch", report.compute.forward_s * 1e3},
        {"backward_ms_per_micro_batch", report.compute.backward_s * 1e3}}},
      {"sim", {{"wall_s", report.wall_s}, {"events", report.events}, {"fidelity", req.fidelity}}}};
  if (stragglers.active()) {
    // The slowest rank sets the compute phase, and the slowest fixed rank its kernels and optimizer step; the others
    // wait. Nominal = what a uniform cluster spends on each.
    const double nominal        = avg.compute_s / straggling.compute_factor;
    const double nominal_kernel = (avg.compression_s + avg.optimizer_s) / straggling.kernel_factor;
    doc["breakdown"]["straggler_wait_s"] =
        straggling.mean_idle_factor * nominal + straggling.mean_kernel_idle_factor * nominal_kernel;
    nlohmann::json idle = nlohmann::json::array();
    for (std::size_t r = 0; r < straggling.idle_factor.size(); ++r)
      idle.push_back(straggling.idle_factor[r] * nominal + straggling.kernel_idle_factor[r] * nominal_kernel);
    doc["ranks_idle_s"] = idle;
    doc["config"]["stragglers"] = {{"compute_factor", straggling.compute_factor},
                                   {"kernel_factor", straggling.kernel_factor},
                                   {"cv", stragglers.cv},
                                   {"seed", stragglers.seed},
                                   {"slow_gpus", stragglers.rank_scale.size()}};
  }
  if (req.links) {
    nlohmann::json links = nlohmann::json::array();
    for (const auto& l : report.links)
      links.push_back({{"link", l.name}, {"bytes", l.bytes}, {"utilisation", l.utilisation}});
    doc["links"]           = links;
    doc["links_over_time"] = links_over_time(report.trace);
  }
  if (req.trace)
    doc["trace"] = trace_events(report.trace);
  return doc;
}

namespace {
// In a simulation child: the write end of its progress pipe (-1 in ccsim itself), and the newest counts. The
// simulation only stores the counts; a reporter thread sends them every 0.25 s, so a long wait inside SimGrid (one
// all-to-all round of n(n-1) messages) still reports the last count instead of the one before the throttle.
int g_child_progress_fd = -1;
std::atomic<std::uint64_t> g_child_done{0}, g_child_total{0};
std::once_flag g_child_reporter;

void child_reporter()
{
  std::uint64_t sent_done = ~0ull, sent_total = ~0ull;
  for (;;) {
    const std::uint64_t done = g_child_done.load(), total = g_child_total.load();
    if (done != sent_done || total != sent_total) {
      const std::string line = fmt::format("{} {}\n", done, total);
      // Non-blocking: if the parent is not reading (an experiment's pool relays no per-point progress), a full pipe
      // drops the line instead of stalling anything. Lines are far below PIPE_BUF, so never torn.
      if (write(g_child_progress_fd, line.data(), line.size()) > 0)
        sent_done = done, sent_total = total;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
}
} // namespace

void report_child_progress(std::uint64_t done, std::uint64_t total)
{
  if (g_child_progress_fd < 0)
    return;
  g_child_total.store(total);
  g_child_done.store(done);
  // The thread ends with the child's _exit.
  std::call_once(g_child_reporter, [] { std::thread(child_reporter).detach(); });
}

IsolatedRun start_isolated(const SimulateRequest& req)
{
  return start_isolated_work([&req] { return run_simulation(req); });
}

IsolatedRun start_isolated_work(const std::function<nlohmann::json()>& work)
{
  // Close-on-exec everywhere: a plot script started later must not hold a simulation's pipe open.
  int fds[2], progress[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  if (pipe2(progress, O_CLOEXEC) != 0) {
    close(fds[0]);
    close(fds[1]);
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  }
  fcntl(progress[1], F_SETFL, O_NONBLOCK);
  // The child's stderr goes to an anonymous file the parent reads afterwards: SimGrid writes hundreds of lines of
  // backtrace when it aborts, and the user must see one line saying why. Progress has its own pipe (above), so the
  // parent draws it on the real stderr.
  const int err_fd = memfd_create("ccsim-simulation-stderr", MFD_CLOEXEC);
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  const pid_t parent = getpid();
  const pid_t pid    = fork();
  if (pid < 0)
    throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    // A child dies with its parent: a batch scheduler's SIGTERM (or SIGKILL) to ccsim must not leave a simulation
    // running; ccsim's own SIGINT / SIGTERM handler kills it too.
    if (!become_child(parent))
      _exit(1);
    close(fds[0]);
    close(progress[0]);
    g_child_progress_fd = progress[1];
    if (err_fd >= 0)
      dup2(err_fd, STDERR_FILENO);
    nlohmann::json answer;
    try {
      answer = {{"ok", work()}};
    } catch (const io::InputError& e) {
      answer = {{"input_error", {{"where", e.where()}, {"pointer", e.pointer()}, {"problem", e.problem()}}}};
    } catch (const std::exception& e) {
      answer = {{"error", e.what()}};
    } catch (...) {
      answer = {{"error", "unknown exception"}};
    }
    write_fully(fds[1], io::dump_json(answer));
    close(fds[1]);
    _exit(0); // skip atexit handlers and stdio flushes that belong to the parent
  }
  track_child(pid);
  close(fds[1]);
  close(progress[1]);
  return {pid, fds[0], err_fd, progress[0]};
}

namespace {
/// The most telling line of a failed child's stderr, for a one-line report: the first that names an error, else the
/// first non-empty one; "" when it wrote nothing.
std::string child_stderr_summary(int fd)
{
  if (fd < 0)
    return "";
  std::string text(65536, '\0');
  const ssize_t n = pread(fd, text.data(), text.size(), 0);
  text.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  std::string first, telling;
  std::size_t start = 0;
  while (start < text.size() && telling.empty()) {
    const auto end   = std::min(text.find('\n', start), text.size());
    std::string line = text.substr(start, end - start);
    start            = end + 1;
    if (line.find_first_not_of(" \t\r") == std::string::npos)
      continue;
    if (first.empty())
      first = line;
    for (const char* word : {"rror", "mpossible", "eadlock", "ssertion", "bort", "xception"})
      if (line.find(word) != std::string::npos)
        telling = line;
  }
  return io::printable(telling.empty() ? first : telling, 200);
}

/// Reaps the child and closes the pipes every IsolatedRun holds except the answer's.
int reap(const IsolatedRun& run)
{
  int status = 0;
  while (waitpid(run.pid, &status, 0) < 0 && errno == EINTR) {
  }
  untrack_child(run.pid);
  if (run.progress_fd >= 0)
    close(run.progress_fd);
  return status;
}
} // namespace

void abandon_isolated(const IsolatedRun& run)
{
  kill(run.pid, SIGKILL);
  reap(run);
  close(run.fd);
  if (run.err_fd >= 0)
    close(run.err_fd);
}

nlohmann::json finish_isolated(const IsolatedRun& run)
{
  std::string text;
  char buf[65536];
  for (;;) {
    const ssize_t n = read(run.fd, buf, sizeof buf);
    if (n > 0)
      text.append(buf, static_cast<std::size_t>(n));
    else if (n == 0 || errno != EINTR)
      break;
  }
  close(run.fd);
  const int status         = reap(run);
  const std::string detail = text.empty() ? child_stderr_summary(run.err_fd) : "";
  if (run.err_fd >= 0)
    close(run.err_fd);
  if (text.empty()) {
    if (stop_requested()) // our own signal handler killed it: not a crash
      throw stop_exception("");
    const std::string why = detail.empty() ? "" : ": " + detail;
    if (WIFSIGNALED(status))
      throw std::runtime_error(fmt::format("simulation crashed (signal {}){}", WTERMSIG(status), why));
    throw std::runtime_error("simulation ended without an answer" + why);
  }
  nlohmann::json answer;
  try {
    answer = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    throw std::runtime_error("simulation sent an unreadable answer");
  }
  if (answer.contains("input_error")) {
    const auto& e = answer["input_error"];
    throw io::InputError(e["where"].get<std::string>(), e["pointer"].get<std::string>(), e["problem"].get<std::string>());
  }
  if (answer.contains("error"))
    throw std::runtime_error(answer["error"].get<std::string>());
  return answer["ok"];
}

nlohmann::json await_isolated(const IsolatedRun& run, const ProgressFn& on_progress)
{
  std::uint64_t done = 0, total = 0;
  bool heard         = false; // the child has said how many messages it plans
  std::string pending;        // progress bytes after the last newline
  int progress_fd = run.progress_fd;
  for (;;) {
    if (stop_requested()) {
      abandon_isolated(run);
      throw stop_exception("");
    }
    pollfd fds[2] = {{run.fd, POLLIN, 0}, {progress_fd, POLLIN, 0}};
    // Wake at least every 0.25 s (the progress clock) and no later than the time limit.
    const int timeout_ms = static_cast<int>(std::ceil(std::min(0.25, seconds_left()) * 1000));
    if (poll(fds, 2, timeout_ms) < 0) {
      if (errno == EINTR)
        continue; // a signal: the loop's first line looks at it
      abandon_isolated(run);
      throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
    }
    if ((fds[1].revents & POLLIN) != 0) {
      char buf[4096];
      const ssize_t n = read(progress_fd, buf, sizeof buf);
      if (n > 0)
        pending.append(buf, static_cast<std::size_t>(n));
      // Complete lines only; the newest wins.
      for (auto end = pending.find('\n'); end != std::string::npos; end = pending.find('\n')) {
        unsigned long long d = 0, t = 0;
        if (std::sscanf(pending.substr(0, end).c_str(), "%llu %llu", &d, &t) == 2)
          done = d, total = t, heard = true;
        pending.erase(0, end + 1);
      }
    } else if ((fds[1].revents & (POLLHUP | POLLERR)) != 0) {
      progress_fd = -1; // the child closed it (it is exiting): poll ignores a negative fd
    }
    if (fds[0].revents != 0)
      return finish_isolated(run);
    if (on_progress && heard)
      on_progress(done, total);
  }
}

nlohmann::json run_simulation_isolated(const SimulateRequest& req, const ProgressFn& on_progress)
{
  return await_isolated(start_isolated(req), on_progress);
}

} // namespace ccsim::cli
