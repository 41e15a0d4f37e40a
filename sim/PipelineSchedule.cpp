// GPipe on SimGrid: one actor per pipeline stage of each chain, and beside each sending stage a companion actor that
// sends its messages one after another, so a stage computes while its last output is still on the wire.
#include "sim/PipelineSchedule.hpp"

#include "sim/PipelineGroups.hpp"
#include "sim/StepAccounting.hpp"
#include "sim/TraceRecording.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace sg4 = simgrid::s4u;

namespace ccsim::sim {

namespace {
struct StageJob {
  StepContext* c;
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
void sender_actor(StepContext* c, int rank, char dir, sg4::Mailbox* queue, sg4::Mailbox* peer, std::uint64_t bytes,
                  int count, std::vector<double>* durations)
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
std::uint64_t count_stage_sends(StepContext& c, const std::vector<int>& ranks, int stage, char dir,
                                const PipelineComm& pipe)
{
  const bool fwd            = dir == 'f';
  const int m               = std::max(1, c.shape.grad_accumulation);
  const int peer            = fwd ? stage + 1 : stage - 1;
  const std::uint64_t bytes = fwd ? pipe.forward_bytes_per_micro_batch : pipe.backward_bytes_per_micro_batch;
  count_messages(c, ranks[stage], ranks[peer], bytes, static_cast<std::uint64_t>(m));
  return bytes;
}

/// One pipeline stage of one chain under GPipe: all forwards, then all backwards.
/// Receives are posted up front (eager buffers), so transfers overlap compute on both sides.
void stage_actor(StageJob job)
{
  StepContext& c   = *job.c;
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
} // namespace

void run_pipeline(StepContext& c, const PhasePlan& phase, PhaseReport& r)
{
  const auto& pipe = *phase.pipeline;
  double kernel_s  = 0;
  for (const auto& k : pipe.kernels_per_micro_batch)
    kernel_s += kernel_seconds(*c.topo, k);
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

} // namespace ccsim::sim
