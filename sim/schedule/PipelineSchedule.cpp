// GPipe on SimGrid: one actor per pipeline stage of each chain, and beside each sending stage a companion actor that
// sends its messages one after another, so a stage computes while its last output is still on the wire (or, with
// PipelineComm::blocking_sends, waits for it to arrive before its next unit).
// The tp chains of one data-parallel index run in lockstep where the cluster is symmetric (see lane_copies): one set
// of actors then drives all of them, each send starting the flows of every copy at once.
#include "sim/schedule/PipelineSchedule.hpp"

#include "sim/layout/PipelineGroups.hpp"
#include "sim/platform/ShapedTransfer.hpp"
#include "sim/schedule/PipelineClosedForm.hpp"
#include "sim/schedule/PipelineCriticalPath.hpp"
#include "sim/step/StepAccounting.hpp"
#include "sim/step/TraceRecording.hpp"

#include <fmt/format.h>

#include <simgrid/s4u/Semaphore.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <utility>

namespace sg4 = simgrid::s4u;

namespace ccsim::sim {

namespace {
/// Where a lane (several chains in lockstep) hands a message to its next stage: released once all copies' flows of a
/// message have arrived, per stage and direction.
using Arrivals = std::map<std::pair<int, char>, sg4::SemaphorePtr>;

struct StageJob {
  StepContext* c;
  int chain;
  int stage;
  std::vector<int> ranks; // the chain's ranks, stage order
  std::vector<std::vector<int>> copies; // with a lane, every chain it drives (ranks[] first); else empty
  Arrivals* arrivals;                   // with a lane: its stages' semaphores
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
/// while the stage keeps computing: a companion actor takes send requests from a local queue. With `delivered`, each
/// arrival is also released there, for a stage whose sends block it (PipelineComm::blocking_sends).
void sender_actor(StepContext* c, int rank, char dir, sg4::Mailbox* queue, sg4::Mailbox* peer, std::uint64_t bytes,
                  int count, std::vector<double>* durations, sg4::SemaphorePtr delivered)
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
    if (delivered)
      delivered->release();
  }
}

/// A lane's sender: each message starts one flow per copy (copy j's stage GPU to its peer GPU) and, once all have
/// arrived, lets the peer stage go on. Host-to-host flows between the same GPUs, started at the same instant as the
/// copies' own senders would start them, so the network sees what it would see with one actor pair per copy.
void lane_sender_actor(StepContext* c, const std::vector<std::vector<int>>* copies, int stage, int peer,
                       sg4::Mailbox* queue, sg4::SemaphorePtr arrived, std::uint64_t bytes, int count,
                       std::vector<double>* durations, sg4::SemaphorePtr delivered)
{
  std::vector<sg4::CommPtr> comms;
  comms.reserve(copies->size());
  for (int i = 0; i < count; ++i) {
    queue->get<int>();
    const double t0 = sg4::Engine::get_clock();
    comms.clear();
    for (const auto& ranks : *copies)
      comms.push_back(sg4::Comm::sendto_async(c->platform.gpu(ranks[stage]),
                                              c->platform.gpu(ranks[peer]), bytes));
    sg4::Comm::wait_all(comms);
    if (durations != nullptr)
      durations->push_back(sg4::Engine::get_clock() - t0);
    arrived->release();
    if (delivered)
      delivered->release();
  }
}

/// Whether a stage of a pp-stage chain sends in direction `dir` ('f': to the next stage, 'b': to the previous one).
bool stage_sends(int stage, char dir, int pp)
{
  return dir == 'f' ? stage < pp - 1 : stage > 0;
}

/// Counts the messages one stage sends in one direction over a step (one per micro-batch and model chunk, to the next
/// stage forward or the previous one backward): bytes inside or across nodes, events, tracked links. Returns the bytes of each.
std::uint64_t count_stage_sends(StepContext& c, const std::vector<int>& ranks, int stage, char dir,
                                const PipelineComm& pipe)
{
  const bool fwd            = dir == 'f';
  const int m               = pipeline_units(c);
  const int peer            = fwd ? stage + 1 : stage - 1;
  const std::uint64_t bytes = fwd ? pipe.forward_bytes_per_micro_batch : pipe.backward_bytes_per_micro_batch;
  count_messages(c, ranks[stage], ranks[peer], bytes, static_cast<std::uint64_t>(m));
  return bytes;
}

/// Counts every message of one chain (all its sending stages, both directions), as count_stage_sends does one's.
void count_chain_sends(StepContext& c, const std::vector<int>& ranks, const PipelineComm& pipe)
{
  for (const char dir : {'f', 'b'})
    for (int s = 0; s < c.layout.pp; ++s)
      if (stage_sends(s, dir, c.layout.pp))
        count_stage_sends(c, ranks, s, dir, pipe);
}

/// One pipeline stage of one chain under GPipe: all forwards, then all backwards, one unit per micro-batch and model
/// chunk (pipeline_units), each unit 1/vpp of the stage's work per micro-batch.
/// Receives are posted up front (eager buffers), so transfers overlap compute on both sides.
void stage_actor(StageJob job)
{
  StepContext& c   = *job.c;
  const int m      = pipeline_units(c);
  const double chunk = 1.0 / std::max(1, c.shape.vpp);
  const int last   = static_cast<int>(job.ranks.size()) - 1;
  const auto& pipe = *job.pipe;
  static int token = 0;
  std::vector<int*> got(m, nullptr);
  for (char dir : {'f', 'b'}) {
    const bool fwd      = dir == 'f';
    const bool receives = fwd ? job.stage > 0 : job.stage < last;
    const bool sends_on = stage_sends(job.stage, dir, last + 1);
    const bool lane = !job.copies.empty();
    std::vector<sg4::CommPtr> recvs;
    if (receives && !lane)
      for (int i = 0; i < m; ++i)
        recvs.push_back(mailbox(job.chain, job.stage, dir)->get_async<int>(&got[i]));
    sg4::Mailbox* queue = nullptr;
    sg4::ActorPtr sender;
    // Blocking sends: the stage waits for each of its messages to arrive before its next unit.
    const sg4::SemaphorePtr delivered = sends_on && pipe.blocking_sends ? sg4::Semaphore::create(0) : nullptr;
    if (sends_on) {
      const int peer            = fwd ? job.stage + 1 : job.stage - 1;
      std::uint64_t bytes = 0;
      for (const auto& ranks : lane ? job.copies : std::vector<std::vector<int>>{job.ranks})
        bytes = count_stage_sends(c, ranks, job.stage, dir, pipe);
      // The bytes counted above stay the payload's; the wire may carry more (pipeline_wire_bytes).
      bytes = pipeline_wire_bytes(c, job.ranks[job.stage], job.ranks[peer], bytes);
      const bool measured       = job.chain == 0 && job.stage == (fwd ? 0 : 1);
      auto* durations           = measured ? (fwd ? job.fw_comm : job.bw_comm) : nullptr;
      queue  = sg4::Mailbox::by_name(fmt::format("q{}s{}{}", job.chain, job.stage, dir));
      queue->set_receiver(nullptr);
      const auto name = fmt::format("send{}-{}{}", job.chain, job.stage, dir);
      if (lane)
        sender = sg4::Actor::create(name, sg4::this_actor::get_host(), lane_sender_actor, &c, &job.copies, job.stage,
                                    peer, queue, job.arrivals->at({peer, dir}), bytes, m, durations, delivered);
      else
        sender = sg4::Actor::create(name, sg4::this_actor::get_host(), sender_actor, &c, job.ranks[job.stage], dir,
                                    queue, mailbox(job.chain, peer, dir), bytes, m, durations, delivered);
    }
    for (int i = 0; i < m; ++i) {
      if (receives && lane)
        job.arrivals->at({job.stage, dir})->acquire();
      else if (receives)
        recvs[i]->wait();
      // Where GPUs differ, this stage runs at its own GPU's speed (a slow GPU slows its stage, the schedule the rest).
      const bool own       = !c.rank_inverse_scale.empty();
      const double inverse = own ? c.rank_inverse_scale[static_cast<std::size_t>(job.ranks[job.stage])] : 1;
      const double compute = chunk * (own ? (fwd ? c.nominal.forward_s : c.nominal.backward_s) * c.noise_factor * inverse
                                          : (fwd ? c.compute.forward_s : c.compute.backward_s));
      const double kernel  = job.kernel_s * (own ? inverse : c.kernel_factor);
      const double work    = compute + (receives ? kernel : 0) + (sends_on ? kernel : 0);
      const double start = sg4::Engine::get_clock();
      sg4::this_actor::sleep_for(work);
      span_rank(c, job.ranks[job.stage], fmt::format("{} {}", fwd ? "forward" : "backward", i + 1), "compute", start,
                sg4::Engine::get_clock());
      if (sends_on)
        queue->put_init(&token, 0)->detach();
      if (delivered)
        delivered->acquire();
    }
    if (sender)
      sender->join();
  }
}
} // namespace

std::uint64_t pipeline_wire_bytes(const StepContext& c, int src, int dst, std::uint64_t payload)
{
  const bool across = c.platform.node_of(src) != c.platform.node_of(dst);
  return static_cast<std::uint64_t>(std::llround(shaped_transfer_bytes(*c.topo, static_cast<double>(payload), across)));
}

int pipeline_units(const StepContext& c)
{
  return std::max(1, c.shape.grad_accumulation) * std::max(1, c.shape.vpp);
}

void run_pipeline(StepContext& c, const PhasePlan& phase, PhaseReport& r)
{
  const auto& pipe       = *phase.pipeline;
  const double kernel_s  = pipeline_kernel_side_s(c, phase);
  std::vector<double> fw_comm, bw_comm;
  const auto chains = pipeline_chains(c.layout);
  // Chains on domains of their own that copy one another are simulated once (sim/layout/PipelineGroups.hpp): not where GPUs
  // differ in speed, nodes in their ports, or where spans per rank are recorded (the others' would be missing).
  const int domain_nodes = pipeline_domain_nodes(*c.topo);
  const bool reducible   = c.reduce_symmetric && c.rank_inverse_scale.empty() && !c.record_spans &&
                         c.platform.identical_nodes && domain_nodes > 0;
  std::vector<char> simulated(chains.size(), reducible ? 0 : 1);
  if (reducible)
    for (const std::size_t i : representative_chains(chains, c.platform.gpus_per_node, domain_nodes))
      simulated[i] = 1;
  const bool closed_form = pipeline_in_closed_form(c);
  if (closed_form) { // every message counted here, none sent one by one (sim/schedule/PipelineClosedForm.hpp)
    for (const auto& ranks : chains)
      count_chain_sends(c, ranks, pipe);
    run_pipeline_closed_form(c, phase, chains, simulated, kernel_s, r);
  }
  // Lanes: the tp chains of one data-parallel index (chains d·tp .. d·tp + tp - 1) sit on the same nodes, local GPU
  // t of an aligned block of tp (rank(s, d, t) = rank(s, d, 0) + t, tp dividing the GPUs per node). Turning every
  // such block by one GPU maps the platform onto itself (a node's GPU ports are alike) and each chain onto the next
  // of its lane, so all run alike: SimGrid's max-min gives the flows a saturated link shares one rate, and every copy
  // computes, sends and receives at the same instants. One set of actors then drives a lane, each of its sends
  // carrying every copy's flow (a 70B step at tp 8: 8 times fewer actors and synchronisations, the same flows).
  // Not where GPUs differ in speed or spans per rank are recorded (the copies' would be missing).
  const int tp     = c.layout.tp;
  const bool lanes = c.reduce_symmetric && c.rank_inverse_scale.empty() && !c.record_spans && tp > 1 &&
                     c.platform.gpus_per_node % tp == 0;
  std::vector<Arrivals> arrivals(lanes ? chains.size() / static_cast<std::size_t>(tp) : 0);
  std::vector<sg4::ActorPtr> actors;
  for (std::size_t chain = 0; chain < (closed_form ? 0 : chains.size()); ++chain) {
    const auto& ranks = chains[chain];
    if (!simulated[chain]) { // its messages are those of its copy in the simulated group: counted, not sent
      count_chain_sends(c, ranks, pipe);
      continue;
    }
    std::vector<std::vector<int>> copies;
    Arrivals* lane_arrivals = nullptr;
    if (lanes) {
      if (chain % static_cast<std::size_t>(tp) != 0)
        continue; // driven by its lane's first chain
      copies.assign(chains.begin() + static_cast<long>(chain), chains.begin() + static_cast<long>(chain) + tp);
      lane_arrivals = &arrivals[chain / static_cast<std::size_t>(tp)];
      for (int s = 0; s < c.layout.pp; ++s)
        for (const char dir : {'f', 'b'})
          (*lane_arrivals)[{s, dir}] = sg4::Semaphore::create(0);
    }
    for (int s = 0; s < c.layout.pp; ++s)
      actors.push_back(sg4::Actor::create(fmt::format("stage{}-{}", chain, s), c.platform.gpu(ranks[s]), stage_actor,
                                          StageJob{&c, static_cast<int>(chain), s, ranks, copies, lane_arrivals,
                                                   kernel_s, &pipe, &fw_comm, &bw_comm}));
  }
  for (auto& a : actors)
    a->join();
  const int m   = std::max(1, c.shape.grad_accumulation);
  r.compute_s   = m * (c.compute.forward_s + c.compute.backward_s);
  r.compression_s = 2 * m * kernel_s * c.kernel_factor; // the slowest GPU's
  auto mean     = [](const std::vector<double>& v) { return v.empty() ? 0.0 : std::accumulate(v.begin(), v.end(), 0.0) / v.size(); };
  if (!closed_form) {
    r.pipeline_forward_comm_s  = mean(fw_comm);
    r.pipeline_backward_comm_s = mean(bw_comm);
  }
  r.comm_s = pipeline_units(c) * (r.pipeline_forward_comm_s + r.pipeline_backward_comm_s);
}

} // namespace ccsim::sim
