// The step engine: one controller actor replays each phase's step on the platform and measures it.
#include "sim/StepEngine.hpp"

#include "sim/PipelineGroups.hpp"
#include "sim/Platform.hpp"
#include "sim/RankLayout.hpp"
#include "sim/SymmetricRound.hpp"

#include <simgrid/s4u.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <memory>
#include <chrono>
#include <cmath>
#include <fmt/format.h>
#include <numeric>
#include <optional>
#include <map>
#include <tuple>
#include <stdexcept>

XBT_LOG_NEW_DEFAULT_CATEGORY(ccsim_step, "ccsim step engine");

namespace sg4 = simgrid::s4u;

namespace ccsim::sim {

ComputeTimes compute_times(const Topology& topo, const Workload& workload, const StepShape& shape)
{
  const int seq = shape.seq_len > 0 ? shape.seq_len : workload.seq_len;
  if (const auto p = workload.find_compute(topo.gpu.name, shape.micro_batch, seq, shape.tp, topo.software)) {
    // A profile with pp stages gives one stage's time; spread the whole model over this run's stages.
    const double stages = static_cast<double>(p->pp) / shape.pp;
    return {p->forward_s * stages, p->backward_s * stages, "profile: " + p->source};
  }
  // No measurement for this GPU: model FLOPs over the sustained rate; backward costs twice the forward.
  const double flops = workload.flops_per_sample * static_cast<double>(shape.micro_batch) *
                       (seq > 0 && workload.seq_len > 0 ? static_cast<double>(seq) / workload.seq_len : 1.0);
  const double seconds = flops / (topo.gpu.sustained_flops * shape.tp * shape.pp);
  return {seconds / 3, 2 * seconds / 3,
          fmt::format("flops: {:.3g} FLOP/sample at {:.3g} TFLOP/s sustained", workload.flops_per_sample,
                      topo.gpu.sustained_flops / 1e12)};
}

double optimizer_seconds(const Topology& topo, const Workload& workload, const OptimizerOp& op)
{
  for (const auto& name : {op.optimizer, op.fallback}) {
    if (name.empty())
      continue;
    if (const auto t = workload.find_optimizer(topo.gpu.name, name, topo.software); t && workload.params > 0)
      return *t * static_cast<double>(op.params) / static_cast<double>(workload.params);
  }
  return static_cast<double>(op.params) * op.bytes_touched_per_param / topo.gpu.memory_bytes_per_s;
}

namespace {

struct Ctx {
  const Topology* topo     = nullptr;
  const Workload* workload = nullptr;
  const StepPlan* plan     = nullptr;
  StepShape shape;
  Fidelity fidelity = Fidelity::FAST;
  Platform platform;
  RankLayout layout;
  ComputeTimes compute;
  double kernel_factor = 1; // StepOptions::kernel_factor
  ComputeTimes nominal;     // compute before any straggler factor (pipelined stages apply their own GPU's)
  std::vector<double> rank_inverse_scale; // StepOptions::rank_inverse_scale
  double noise_factor = 1;                // StepOptions::noise_factor
  double lat_factor = 1;
  bool reduce_symmetric = true; // symmetric_rounds_enabled()
  std::uint64_t events = 0;
  double inter_bytes = 0;
  double intra_bytes = 0;
  std::vector<PhaseReport> reports;
  // Recording (simulate --trace / --links): spans when record_spans, link intervals when `tracked` is not empty.
  StepTrace* trace  = nullptr;
  bool record_spans = false;
  int phase_index   = 0;
  std::vector<sg4::Link*> tracked;
  std::vector<double> link_bytes; // bytes each tracked link carried so far (counted per flow along its route)
  std::vector<double> last_load;  // link_bytes at the last sample
  double last_sample_s = 0;
  std::map<std::pair<int, int>, std::vector<std::size_t>> routes; // (src node, dst node) -> tracked links crossed
  std::function<void(std::uint64_t)> on_progress; // StepOptions::on_progress
};

/// Counts `n` more messages simulated, and tells the progress callback every kProgressEvery of them.
void note_events(Ctx& c, std::uint64_t n)
{
  const std::uint64_t before = c.events;
  c.events += n;
  if (c.on_progress && before / kProgressEvery != c.events / kProgressEvery)
    c.on_progress(c.events);
}

/// Adds a flow's bytes to every tracked link on its route. Counted here rather than read from SimGrid's link-load
/// plugin, whose cumulated load also integrates the latency phase of each flow (a few kB per message, and more under
/// sharing), so the per-op bytes would not add up to the bytes the collective sent.
void count_link_bytes(Ctx& c, int src, int dst, std::uint64_t bytes)
{
  const auto key = std::make_pair(c.platform.node_of(src), c.platform.node_of(dst));
  auto it        = c.routes.find(key);
  if (it == c.routes.end()) {
    std::vector<sg4::Link*> route;
    double latency = 0;
    c.platform.gpus[src]->route_to(c.platform.gpus[dst], route, &latency);
    std::vector<std::size_t> crossed;
    for (auto* link : route)
      for (std::size_t i = 0; i < c.tracked.size(); ++i)
        if (c.tracked[i] == link)
          crossed.push_back(i);
    it = c.routes.emplace(key, std::move(crossed)).first;
  }
  for (const std::size_t i : it->second)
    c.link_bytes[i] += static_cast<double>(bytes);
}

/// The track that stands for `rank`, or -1 when it has none (past kMaxRankTracks ranks, a node's first GPU only).
int track_of(const Ctx& c, int rank)
{
  if (!c.trace->per_node)
    return rank;
  return rank % c.topo->gpus_per_node == 0 ? rank / c.topo->gpus_per_node : -1;
}

void span_rank(Ctx& c, int rank, std::string name, const char* category, double t0, double t1, int lane = 0)
{
  if (!c.record_spans)
    return;
  if (const int track = track_of(c, rank); track >= 0)
    c.trace->spans.push_back({c.phase_index, track, lane, std::move(name), category, t0, t1});
}

/// A span on every track: the data-parallel engine runs every rank in lockstep.
void span_all(Ctx& c, const std::string& name, const char* category, double t0, double t1)
{
  if (!c.record_spans)
    return;
  for (int track = 0; track < c.trace->tracks; ++track)
    c.trace->spans.push_back({c.phase_index, track, 0, name, category, t0, t1});
}

/// Closes a link interval at the current clock: the bytes each tracked link carried since the last sample.
void sample_links(Ctx& c, const std::string& op)
{
  if (c.tracked.empty())
    return;
  const double now = sg4::Engine::get_clock();
  LinkInterval interval{c.phase_index, op, c.last_sample_s, now, {}};
  for (std::size_t i = 0; i < c.tracked.size(); ++i) {
    interval.bytes.push_back(c.link_bytes[i] - c.last_load[i]);
    c.last_load[i] = c.link_bytes[i];
  }
  c.last_sample_s = now;
  if (interval.end_s > interval.start_s)
    c.trace->link_intervals.push_back(std::move(interval));
}

/// Records one op that ran from t0 to now on every rank.
void record_op(Ctx& c, const std::string& name, const char* category, double t0)
{
  span_all(c, name, category, t0, sg4::Engine::get_clock());
  sample_links(c, name);
}

double hop_latency(const Ctx& c, const Flow& f)
{
  const bool inter = c.platform.node_of(f.src) != c.platform.node_of(f.dst);
  return c.lat_factor * (inter ? c.topo->inter_node_latency_s() : c.topo->intra_node_latency_s());
}

/// Accounts one message: bytes inside or across nodes, the event count, the tracked links on its route.
void count_flow(Ctx& c, int src, int dst, std::uint64_t bytes)
{
  const bool inter = c.platform.node_of(src) != c.platform.node_of(dst);
  (inter ? c.inter_bytes : c.intra_bytes) += static_cast<double>(bytes);
  note_events(c, 1);
  if (inter && !c.tracked.empty())
    count_link_bytes(c, src, dst, bytes);
}

sg4::CommPtr start_flow(Ctx& c, int src, int dst, std::uint64_t bytes)
{
  count_flow(c, src, dst, bytes);
  return sg4::Comm::sendto_async(c.platform.gpus[src], c.platform.gpus[dst], bytes);
}

/// Starts `flows` from the calling actor and waits for all of them.
void send_and_wait(Ctx& c, const std::vector<Flow>& flows)
{
  std::vector<sg4::CommPtr> comms;
  comms.reserve(flows.size());
  for (const auto& f : flows)
    comms.push_back(start_flow(c, f.src, f.dst, f.bytes));
  sg4::Comm::wait_all(comms);
}

/// When every flow of `round` stays inside its node and every node holds the same flows (same local source,
/// destination and size), returns the first node's flows; otherwise nothing. Intra-node routes cross only their own
/// node's ports, so the nodes do not interact and each finishes when the first does: simulating one node gives the
/// round's time exactly (a ring step of 16,384 GPUs: 8 flows instead of 16,384).
std::optional<std::vector<Flow>> one_node_of_identical(const Ctx& c, const Round& round)
{
  const int gpn = c.platform.gpus_per_node;
  if (!c.platform.identical_nodes || gpn < 2 || round.flows.size() <= static_cast<std::size_t>(gpn))
    return std::nullopt;
  std::map<int, std::vector<std::tuple<int, int, std::uint64_t>>> by_node; // node -> (local src, local dst, bytes)
  for (const auto& f : round.flows) {
    const int node = c.platform.node_of(f.src);
    if (node != c.platform.node_of(f.dst))
      return std::nullopt;
    by_node[node].emplace_back(f.src - node * gpn, f.dst - node * gpn, f.bytes);
  }
  for (auto& [node, flows] : by_node)
    std::sort(flows.begin(), flows.end());
  const auto& first = by_node.begin()->second;
  for (const auto& [node, flows] : by_node)
    if (flows != first)
      return std::nullopt;
  const int base = by_node.begin()->first * gpn;
  std::vector<Flow> one;
  for (const auto& [src, dst, bytes] : first)
    one.push_back({base + src, base + dst, bytes});
  return one;
}

/// The host of a flow endpoint: a GPU by rank, or the fabric port (sim/SymmetricRound.hpp).
sg4::Host* endpoint(const Ctx& c, int id)
{
  return id == kFabricPort ? c.platform.fabric_port : c.platform.gpus[static_cast<std::size_t>(id)];
}

/// One round of flows, all started at the same simulated instant.
///
/// Why large rounds take another path: SimGrid 3.32 detaches every host-to-host comm (Comm::sendto_init), which parks
/// it on the maestro's std::list of activities, and removes it from there by value when it finishes
/// (CommImpl::finish: maestro->activities_.remove(this)). Each completion thus scans every comm still in flight, so a
/// round of K flows costs O(K^2): a 1,024-GPU all-to-all's 10^5 node-pair flows spent over 90 % of the run in that
/// scan (perf, issue 19). Mailbox comms are not detached: they sit in the lists of their own sender and receiver
/// actors only. So a large round is carried by one short-lived actor per sending GPU and one per receiving GPU, each
/// holding only its own flows. The network sees the same flows, between the same hosts, started at the same instant.
void run_round(Ctx& c, const Round& round)
{
  if (const auto one = one_node_of_identical(c, round)) {
    for (const auto& f : round.flows) // every flow is still counted (bytes, events), only the first node's run
      if (c.platform.node_of(f.src) != c.platform.node_of(one->front().src))
        count_flow(c, f.src, f.dst, f.bytes);
    send_and_wait(c, *one);
    return;
  }
  if (const auto reduced = c.reduce_symmetric ? reduce_symmetric_round(round, c.platform, *c.topo) : std::nullopt) {
    for (const auto& f : round.flows) // every real flow is counted (bytes, events, links); the reduced set is timed
      count_flow(c, f.src, f.dst, f.bytes);
    std::vector<sg4::CommPtr> comms;
    comms.reserve(reduced->size());
    for (const auto& f : *reduced)
      comms.push_back(sg4::Comm::sendto_async(endpoint(c, f.src), endpoint(c, f.dst), f.bytes));
    sg4::Comm::wait_all(comms);
    return;
  }
  // The actors' own cost is their stacks (SimGrid touches each one whole), so they pay off only where a GPU sends
  // many flows (an all-to-all). A round of one flow per GPU (a ring step, even of 16,384 GPUs: ~0.3 s of scan)
  // stays on the direct path: two actors per flow would cost more than the scan they save.
  constexpr std::size_t DIRECT_FLOWS    = 1024; // up to here the quadratic scan costs less than creating actors
  constexpr std::size_t FLOWS_PER_ACTOR = 4;    // below this many flows per sending GPU, actors cost more
  if (round.flows.size() <= DIRECT_FLOWS) { // most rounds: no need to count the senders
    send_and_wait(c, round.flows);
    return;
  }
  std::vector<char> sends(c.platform.gpus.size(), 0);
  std::size_t senders = 0;
  for (const auto& f : round.flows)
    if (auto& s = sends[static_cast<std::size_t>(f.src)]; !s) {
      s = 1;
      ++senders;
    }
  if (round.flows.size() < FLOWS_PER_ACTOR * senders) {
    send_and_wait(c, round.flows);
    return;
  }
  // An actor's own list is scanned whole on every removal too (std::list::remove), so a GPU with many flows gets
  // several sending (or receiving) actors of PER_ACTOR comms each; PER_ACTOR grows with the round so that a GPU never
  // needs more than ~8 actors per side (a 1,024-GPU exact all-to-all: 1,023 flows per GPU, 128 per actor).
  const std::size_t PER_ACTOR = std::max<std::size_t>(16, round.flows.size() / 8192);
  static int token = 0;
  std::map<int, std::size_t> incoming;          // receiving GPU -> flows it receives
  std::map<int, std::vector<const Flow*>> sent; // sending GPU -> its flows
  for (const auto& f : round.flows) {
    ++incoming[f.dst];
    sent[f.src].push_back(&f);
  }
  auto inbox = [](int rank) { return sg4::Mailbox::by_name("round-in" + std::to_string(rank)); };
  std::vector<sg4::ActorPtr> actors;
  actors.reserve(2 * round.flows.size() / PER_ACTOR + incoming.size() + sent.size());
  for (const auto& [dst, count] : incoming)
    for (std::size_t first = 0; first < count; first += PER_ACTOR)
      actors.push_back(sg4::Actor::create("round-recv", c.platform.gpus[dst],
                                          [mbox = inbox(dst), n = std::min(PER_ACTOR, count - first)] {
                                            std::vector<int*> got(n, nullptr);
                                            std::vector<sg4::CommPtr> comms;
                                            comms.reserve(n);
                                            for (auto& g : got)
                                              comms.push_back(mbox->get_async<int>(&g));
                                            sg4::Comm::wait_all(comms);
                                          }));
  for (const auto& [src, flows] : sent)
    for (std::size_t first = 0; first < flows.size(); first += PER_ACTOR) {
      std::vector<const Flow*> mine(flows.begin() + static_cast<long>(first),
                                    flows.begin() + static_cast<long>(std::min(flows.size(), first + PER_ACTOR)));
      actors.push_back(sg4::Actor::create("round-send", c.platform.gpus[src], [&c, &inbox, mine = std::move(mine)] {
        std::vector<sg4::CommPtr> comms;
        comms.reserve(mine.size());
        for (const Flow* f : mine) {
          count_flow(c, f->src, f->dst, f->bytes);
          comms.push_back(inbox(f->dst)->put_async(&token, f->bytes));
        }
        sg4::Comm::wait_all(comms);
      }));
    }
  for (auto& a : actors)
    a->join();
}

/// Runs one collective on every group of its kind; returns the simulated seconds it took.
double run_collective(Ctx& c, const CommOp& op)
{
  const double t0  = sg4::Engine::get_clock();
  const auto rounds = schedule_collective(op.collective, op.algo, c.layout.groups(op.group), op.bytes, c.fidelity,
                                          c.topo->gpus_per_node, c.shape.merge_node_pairs);
  for (const auto& round : rounds) {
    double alpha = 0;
    for (const auto& f : round.flows)
      alpha = std::max(alpha, hop_latency(c, f));
    run_round(c, round);
    if (round.extra_latency_terms > 0)
      sg4::this_actor::sleep_for(round.extra_latency_terms * alpha);
  }
  return sg4::Engine::get_clock() - t0;
}

double run_ops(Ctx& c, const std::vector<Op>& ops, PhaseReport& r, bool overlapped)
{
  const double t0 = sg4::Engine::get_clock();
  for (const auto& op : ops) {
    const double op_start = sg4::Engine::get_clock();
    if (const auto* comm = std::get_if<CommOp>(&op)) {
      if (comm->overlap_backward != overlapped)
        continue;
      const double t = run_collective(c, *comm);
      record_op(c, comm->label, overlapped ? "collective (under backward)" : "collective", op_start);
      r.comm_s += t;
      if (comm->synchronisation)
        r.allreduce_s += t;
      if (!overlapped)
        r.exposed_comm_s += t;
    } else if (overlapped) {
      continue;
    } else if (const auto* k = std::get_if<KernelOp>(&op)) {
      const double t = static_cast<double>(k->bytes) / c.topo->gpu.kernel_rate(k->kernel) * c.kernel_factor;
      sg4::this_actor::sleep_for(t);
      r.compression_s += t;
      record_op(c, k->kernel, "kernel", op_start);
    } else if (const auto* o = std::get_if<OptimizerOp>(&op)) {
      const double t = optimizer_seconds(*c.topo, *c.workload, *o) * c.kernel_factor;
      sg4::this_actor::sleep_for(t);
      r.optimizer_s += t;
      record_op(c, "optimizer " + o->optimizer, "optimizer", op_start);
    }
  }
  return sg4::Engine::get_clock() - t0;
}

/// Compute spans of a data-parallel step starting at t0: forward and backward of each micro-batch (the first 16
/// one by one, the rest as one span, so a 1,000-step accumulation stays a small trace).
void record_micro_batches(Ctx& c, double t0, int accum, double f, double b)
{
  constexpr int SPANNED = 16;
  for (int i = 0; i < std::min(accum, SPANNED); ++i) {
    const double start = t0 + i * (f + b);
    span_all(c, fmt::format("forward {}", i + 1), "compute", start, start + f);
    span_all(c, fmt::format("backward {}", i + 1), "compute", start + f, start + f + b);
  }
  if (accum > SPANNED)
    span_all(c, fmt::format("forward+backward {}-{}", SPANNED + 1, accum), "compute", t0 + SPANNED * (f + b),
             t0 + accum * (f + b));
}

/// Data-parallel step: all micro-batches, the last backward possibly overlapped with flagged collectives.
void run_data_parallel_compute(Ctx& c, const PhasePlan& phase, PhaseReport& r)
{
  const int accum = std::max(1, c.shape.grad_accumulation);
  const double f = c.compute.forward_s, b = c.compute.backward_s;
  r.compute_s    = accum * (f + b);
  record_micro_batches(c, sg4::Engine::get_clock(), accum, f, b);
  sg4::this_actor::sleep_for((accum - 1) * (f + b) + f);
  const bool any_overlap = std::any_of(phase.ops.begin(), phase.ops.end(), [](const Op& op) {
    const auto* comm = std::get_if<CommOp>(&op);
    return comm != nullptr && comm->overlap_backward;
  });
  if (!any_overlap) {
    sg4::this_actor::sleep_for(b);
    sample_links(c, "compute");
    return;
  }
  // The backward pass runs as a timer on the GPU while the flagged collectives go out (bucketed overlap).
  auto backward = sg4::Exec::init()->set_flops_amount(b * 1e9)->set_host(c.platform.gpus[0]);
  backward->start();
  const double comm = run_ops(c, phase.ops, r, /*overlapped=*/true);
  backward->wait();
  sample_links(c, "compute");
  r.exposed_comm_s += std::max(0.0, comm - b);
}

struct StageJob {
  Ctx* c;
  int chain;
  int stage;
  std::vector<int> ranks; // the chain's ranks, stage order
  double kernel_s;        // quantize/dequantize per micro-batch per send (AQ-SGD's C module)
  const PipelineComm* pipe; // this phase's message sizes (AQ-SGD's fp32 first epoch differs from its later ones)
  std::vector<double>* fw_comm;
  std::vector<double>* bw_comm;
};

sg4::Mailbox* mailbox(int chain, int stage, char dir)
{
  return sg4::Mailbox::by_name(fmt::format("c{}s{}{}", chain, stage, dir));
}

/// Sends of one stage in one direction go out one after another, as NCCL p2p calls queued on one stream do,
/// while the stage keeps computing: a companion actor takes send requests from a local queue.
void sender_actor(Ctx* c, int rank, char dir, sg4::Mailbox* queue, sg4::Mailbox* peer, std::uint64_t bytes, int count,
                  std::vector<double>* durations)
{
  static int token = 0;
  for (int i = 0; i < count; ++i) {
    queue->get<int>();
    const double t0 = sg4::Engine::get_clock();
    peer->put(&token, bytes);
    if (durations != nullptr)
      durations->push_back(sg4::Engine::get_clock() - t0);
    span_rank(*c, rank, fmt::format("send {} {}", dir == 'f' ? "activations" : "gradients", i + 1), "pipeline send", t0,
              sg4::Engine::get_clock(), /*lane=*/1);
  }
}

/// Whether a stage of a pp-stage chain sends in direction `dir` ('f': to the next stage, 'b': to the previous one).
bool stage_sends(int stage, char dir, int pp)
{
  return dir == 'f' ? stage < pp - 1 : stage > 0;
}

/// Counts the messages one stage sends in one direction over a step (one per micro-batch, to the next stage forward or
/// the previous one backward): bytes inside or across nodes, events, tracked links. Returns the bytes of each.
std::uint64_t count_stage_sends(Ctx& c, const std::vector<int>& ranks, int stage, char dir, const PipelineComm& pipe)
{
  const bool fwd            = dir == 'f';
  const int m               = std::max(1, c.shape.grad_accumulation);
  const int peer            = fwd ? stage + 1 : stage - 1;
  const std::uint64_t bytes = fwd ? pipe.forward_bytes_per_micro_batch : pipe.backward_bytes_per_micro_batch;
  const bool inter          = c.platform.node_of(ranks[stage]) != c.platform.node_of(ranks[peer]);
  (inter ? c.inter_bytes : c.intra_bytes) += static_cast<double>(bytes) * m;
  note_events(c, static_cast<std::uint64_t>(m));
  if (inter && !c.tracked.empty())
    count_link_bytes(c, ranks[stage], ranks[peer], bytes * static_cast<std::uint64_t>(m));
  return bytes;
}

/// One pipeline stage of one chain under GPipe: all forwards, then all backwards.
/// Receives are posted up front (eager buffers), so transfers overlap compute on both sides.
void stage_actor(StageJob job)
{
  Ctx& c           = *job.c;
  const int m      = std::max(1, c.shape.grad_accumulation);
  const int last   = static_cast<int>(job.ranks.size()) - 1;
  const auto& pipe = *job.pipe;
  static int token = 0;
  std::vector<int*> got(m, nullptr);
  for (char dir : {'f', 'b'}) {
    const bool fwd      = dir == 'f';
    const bool receives = fwd ? job.stage > 0 : job.stage < last;
    const bool sends_on = stage_sends(job.stage, dir, last + 1);
    std::vector<sg4::CommPtr> recvs;
    if (receives)
      for (int i = 0; i < m; ++i)
        recvs.push_back(mailbox(job.chain, job.stage, dir)->get_async<int>(&got[i]));
    sg4::Mailbox* queue = nullptr;
    sg4::ActorPtr sender;
    if (sends_on) {
      const int peer            = fwd ? job.stage + 1 : job.stage - 1;
      const std::uint64_t bytes = count_stage_sends(c, job.ranks, job.stage, dir, pipe);
      const bool measured       = job.chain == 0 && job.stage == (fwd ? 0 : 1);
      queue  = sg4::Mailbox::by_name(fmt::format("q{}s{}{}", job.chain, job.stage, dir));
      queue->set_receiver(nullptr);
      sender = sg4::Actor::create(fmt::format("send{}-{}{}", job.chain, job.stage, dir), sg4::this_actor::get_host(),
                                  sender_actor, &c, job.ranks[job.stage], dir, queue, mailbox(job.chain, peer, dir), bytes, m,
                                  measured ? (fwd ? job.fw_comm : job.bw_comm) : nullptr);
    }
    for (int i = 0; i < m; ++i) {
      if (receives)
        recvs[i]->wait();
      // Where GPUs differ, this stage runs at its own GPU's speed (a slow GPU slows its stage, the schedule the rest).
      const bool own       = !c.rank_inverse_scale.empty();
      const double inverse = own ? c.rank_inverse_scale[static_cast<std::size_t>(job.ranks[job.stage])] : 1;
      const double compute = own ? (fwd ? c.nominal.forward_s : c.nominal.backward_s) * c.noise_factor * inverse
                                 : (fwd ? c.compute.forward_s : c.compute.backward_s);
      const double kernel  = job.kernel_s * (own ? inverse : c.kernel_factor);
      const double work    = compute + (receives ? kernel : 0) + (sends_on ? kernel : 0);
      const double start = sg4::Engine::get_clock();
      sg4::this_actor::sleep_for(work);
      span_rank(c, job.ranks[job.stage], fmt::format("{} {}", fwd ? "forward" : "backward", i + 1), "compute", start,
                sg4::Engine::get_clock());
      if (sends_on)
        queue->put_init(&token, 0)->detach();
    }
    if (sender)
      sender->join();
  }
}

void run_pipeline(Ctx& c, const PhasePlan& phase, PhaseReport& r)
{
  const auto& pipe = *phase.pipeline;
  double kernel_s  = 0;
  for (const auto& k : pipe.kernels_per_micro_batch)
    kernel_s += static_cast<double>(k.bytes) / c.topo->gpu.kernel_rate(k.kernel);
  kernel_s /= 2; // the listed kernels cover one send and one receive side; each side pays half
  std::vector<double> fw_comm, bw_comm;
  const auto chains = pipeline_chains(c.layout);
  // Chains on domains of their own that copy one another are simulated once (sim/PipelineGroups.hpp): not where GPUs
  // differ in speed, nodes in their ports, or where spans per rank are recorded (the others' would be missing).
  const int domain_nodes = pipeline_domain_nodes(*c.topo);
  const bool reducible   = c.reduce_symmetric && c.rank_inverse_scale.empty() && !c.record_spans &&
                         c.platform.identical_nodes && domain_nodes > 0;
  std::vector<char> simulated(chains.size(), reducible ? 0 : 1);
  if (reducible)
    for (const std::size_t i : representative_chains(chains, c.platform.gpus_per_node, domain_nodes))
      simulated[i] = 1;
  std::vector<sg4::ActorPtr> actors;
  for (std::size_t chain = 0; chain < chains.size(); ++chain) {
    const auto& ranks = chains[chain];
    if (!simulated[chain]) { // its messages are those of its copy in the simulated group: counted, not sent
      for (const char dir : {'f', 'b'})
        for (int s = 0; s < c.layout.pp; ++s)
          if (stage_sends(s, dir, c.layout.pp))
            count_stage_sends(c, ranks, s, dir, pipe);
      continue;
    }
    for (int s = 0; s < c.layout.pp; ++s)
      actors.push_back(sg4::Actor::create(fmt::format("stage{}-{}", chain, s), c.platform.gpus[ranks[s]], stage_actor,
                                          StageJob{&c, static_cast<int>(chain), s, ranks, kernel_s, &pipe, &fw_comm,
                                                   &bw_comm}));
  }
  for (auto& a : actors)
    a->join();
  const int m   = std::max(1, c.shape.grad_accumulation);
  r.compute_s   = m * (c.compute.forward_s + c.compute.backward_s);
  r.compression_s = 2 * m * kernel_s * c.kernel_factor; // the slowest GPU's
  auto mean     = [](const std::vector<double>& v) { return v.empty() ? 0.0 : std::accumulate(v.begin(), v.end(), 0.0) / v.size(); };
  r.pipeline_forward_comm_s  = mean(fw_comm);
  r.pipeline_backward_comm_s = mean(bw_comm);
  r.comm_s = m * (r.pipeline_forward_comm_s + r.pipeline_backward_comm_s);
}

void controller(Ctx* c)
{
  for (const auto& phase : c->plan->phases) {
    PhaseReport r;
    r.name            = phase.name;
    r.fraction        = phase.fraction;
    const double t0   = sg4::Engine::get_clock();
    c->phase_index    = static_cast<int>(c->trace->phases.size());
    c->trace->phases.push_back(phase.name);
    c->trace->phase_start_s.push_back(t0);
    sample_links(*c, "(between phases)"); // starts this phase's first interval at t0
    const double in0 = c->inter_bytes, intra0 = c->intra_bytes;
    if (phase.pipeline) {
      run_pipeline(*c, phase, r);
      sample_links(*c, "pipeline");
      const double pipe_time = sg4::Engine::get_clock() - t0;
      r.exposed_comm_s = std::max(0.0, pipe_time - r.compute_s - r.compression_s);
    } else {
      run_data_parallel_compute(*c, phase, r);
    }
    run_ops(*c, phase.ops, r, /*overlapped=*/false);
    r.step_time_s              = sg4::Engine::get_clock() - t0;
    r.inter_node_bytes_per_gpu = (c->inter_bytes - in0) / c->shape.gpus;
    r.intra_node_bytes_per_gpu = (c->intra_bytes - intra0) / c->shape.gpus;
    XBT_DEBUG("phase %s: %g s", phase.name.c_str(), r.step_time_s);
    c->reports.push_back(r);
  }
}

} // namespace

namespace {
/// SimGrid's Engine for one simulation of `topo`: quiet logging, the topology's network model (set before the first
/// zone exists).
std::unique_ptr<sg4::Engine> make_engine(const Topology& topo)
{
  xbt_log_control_set("root.thres:critical");
  int argc      = 1;
  char name[]   = "ccsim";
  char* argv[]  = {name, nullptr};
  auto engine   = std::make_unique<sg4::Engine>(&argc, argv);
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer cannot follow SimGrid's own stack switching between actors (scripts/test-sanitizers.sh):
  // system threads as contexts keep its stack bookkeeping exact. Same simulation, only slower.
  sg4::Engine::set_config("contexts/factory:thread");
#endif
  // ccsim's actors are shallow (no recursion, no large locals): 64 KiB stacks instead of SimGrid's 8 MiB (a stack
  // costs its whole size in memory: 32,768 actors of 256 KiB held 8.3 GB, issue 19), and no
  // guard page (each costs the process two kernel memory maps, and a 16,384-GPU round runs 32,768 actors: the
  // default 65,530 maps would not do).
  sg4::Engine::set_config("contexts/stack-size:64");
  sg4::Engine::set_config("contexts/guard-size:0");
  configure_network_model(topo);
  return engine;
}

/// The context every simulation shares: the platform of `shape.gpus` GPUs, their rank layout, the latency factor.
void init_context(Ctx& c, const Topology& topo, const StepShape& shape, Fidelity fidelity)
{
  c.topo       = &topo;
  c.shape      = shape;
  c.fidelity   = fidelity;
  c.platform   = build_platform(topo, shape.gpus);
  c.layout     = RankLayout{shape.dp, shape.tp, shape.pp, topo.gpus_per_node};
  c.lat_factor = latency_factor();
  c.reduce_symmetric = symmetric_rounds_enabled();
}
} // namespace

StepReport simulate_step(const Topology& topo, const Workload& workload, const StepPlan& plan, const StepShape& shape,
                         Fidelity fidelity, bool report_links)
{
  StepOptions options;
  options.busiest_links = report_links;
  return simulate_step(topo, workload, plan, shape, fidelity, options);
}

StepReport simulate_step(const Topology& topo, const Workload& workload, const StepPlan& plan, const StepShape& shape,
                         Fidelity fidelity, const StepOptions& options)
{
  const auto wall0 = std::chrono::steady_clock::now();
  const bool report_links = options.busiest_links || options.links_over_time;
  if (shape.gpus > topo.max_gpus())
    throw std::invalid_argument("more GPUs than the topology has");
  for (const auto& phase : plan.phases)
    if (phase.pipeline && shape.pp < 2)
      throw std::invalid_argument("phase '" + phase.name + "' is pipelined but pp < 2");

  const auto engine = make_engine(topo);
  Ctx c;
  init_context(c, topo, shape, fidelity);
  c.workload = &workload;
  c.plan     = &plan;
  c.compute  = compute_times(topo, workload, shape);
  c.nominal  = c.compute;
  c.rank_inverse_scale = options.rank_inverse_scale;
  c.noise_factor       = options.noise_factor;
  c.compute.forward_s *= options.compute_factor;
  c.compute.backward_s *= options.compute_factor;
  c.kernel_factor = options.kernel_factor;
  StepReport report;
  c.trace              = &report.trace;
  c.record_spans       = options.trace_spans;
  c.on_progress        = options.on_progress;
  report.trace.per_node = shape.gpus > StepTrace::kMaxRankTracks;
  report.trace.tracks   = report.trace.per_node ? (shape.gpus + topo.gpus_per_node - 1) / topo.gpus_per_node : shape.gpus;

  if (report_links) {
    // Every NIC and fabric link, each direction of its split-duplex pair ("nic3_UP", "nic3_DOWN").
    std::vector<sg4::Link*> links = c.platform.node_links;
    links.insert(links.end(), c.platform.fabric_links.begin(), c.platform.fabric_links.end());
    for (auto* l : links)
      for (const char* dir : {"_UP", "_DOWN"})
        if (auto* h = sg4::Link::by_name_or_null(l->get_name() + dir))
          c.tracked.push_back(h);
    c.link_bytes.assign(c.tracked.size(), 0.0);
    c.last_load.assign(c.tracked.size(), 0.0);
  }
  if (options.links_over_time)
    for (auto* l : c.tracked) {
      report.trace.links.push_back(l->get_name());
      report.trace.link_bytes_per_s.push_back(l->get_bandwidth());
    }

  sg4::Actor::create("controller", c.platform.gpus[0], controller, &c);
  engine->run();

  report.phases  = c.reports;
  report.compute = c.compute;
  report.events  = c.events;
  if (options.busiest_links) {
    const double now = sg4::Engine::get_clock();
    for (std::size_t i = 0; i < c.tracked.size(); ++i) {
      const double bytes = c.link_bytes[i];
      report.links.push_back({c.tracked[i]->get_name(), bytes, now > 0 ? bytes / (c.tracked[i]->get_bandwidth() * now) : 0});
    }
    std::sort(report.links.begin(), report.links.end(), [](const auto& a, const auto& b) { return a.bytes > b.bytes; });
    if (report.links.size() > 10)
      report.links.resize(10);
  }
  if (!options.links_over_time)
    report.trace.link_intervals.clear();
  report.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return report;
}

CallTimes simulate_calls(const Topology& topo, const StepShape& shape, const std::vector<std::vector<Op>>& calls,
                         Fidelity fidelity, bool with_kernels, const std::function<void(std::uint64_t)>& on_progress)
{
  const auto wall0 = std::chrono::steady_clock::now();
  if (shape.gpus > topo.max_gpus())
    throw std::invalid_argument("more GPUs than the topology has");
  for (const auto& call : calls)
    for (const auto& op : call)
      if (std::holds_alternative<OptimizerOp>(op))
        throw std::invalid_argument("simulate_calls: an optimizer op has no place in a collective call");
  const auto engine = make_engine(topo);
  Ctx c;
  init_context(c, topo, shape, fidelity);
  c.on_progress = on_progress;
  CallTimes out;
  sg4::Actor::create("controller", c.platform.gpus[0], [&] {
    for (const auto& call : calls) {
      const double t0 = sg4::Engine::get_clock();
      for (const auto& op : call) {
        if (const auto* comm = std::get_if<CommOp>(&op))
          run_collective(c, *comm);
        else if (const auto* k = std::get_if<KernelOp>(&op); k != nullptr && with_kernels)
          sg4::this_actor::sleep_for(static_cast<double>(k->bytes) / topo.gpu.kernel_rate(k->kernel));
      }
      out.seconds.push_back(sg4::Engine::get_clock() - t0);
    }
  });
  engine->run();
  out.events = c.events;
  out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return out;
}

} // namespace ccsim::sim
