// Fast fidelity's pipeline in closed form (sim/schedule/PipelineClosedForm.hpp): the schedule's recurrence on
// hand-worked cases, and fast against exact (every message simulated) on shapes small enough to simulate whole.
#include "sim/schedule/PipelineCriticalPath.hpp"
#include "tests/sim/SimTestSupport.hpp"

using namespace ccsim::test;
using ccsim::sim::pipeline_makespan_s;
using ccsim::sim::StageTimes;

TEST_CASE("Pipeline closed form: the schedule's recurrence, worked by hand", "[sim]")
{
  // pp 2, m 2, f 1, b 2, every message 0.5. Forward: stage 0 ends units at 1, 2 and sends them by 1.5, 2.5; stage 1
  // ends them at 2.5, 3.5. Stage 0's backwards start once its last send is out (2.5); stage 1's backwards end at 5.5,
  // 7.5 and arrive at 6, 8; stage 0 ends them at 8 and 10.
  CHECK(pipeline_makespan_s(StageTimes{{1, 1}, {2, 2}, {0.5, 0}, {0, 0.5}}, 2) == Approx(10).epsilon(1e-12));
  // Messages shorter than either unit cross each boundary once on the critical path per direction:
  // (m + pp - 1)(f + b) + (pp - 1)(d_f + d_b). pp 4, m 8, f 1, b 2, d_f 0.3, d_b 0.2: 11 x 3 + 3 x 0.5 = 34.5.
  const std::vector<double> f(4, 1.0), b(4, 2.0), df{0.3, 0.3, 0.3, 0}, db{0, 0.2, 0.2, 0.2};
  CHECK(pipeline_makespan_s(StageTimes{f, b, df, db}, 8) == Approx(34.5).epsilon(1e-12));
  // A message longer than the unit that produces it sets the pace: pp 2, f = b = 1, d_f 3, d_b 0. Stage 0's sends
  // queue, ending at 3i + 4 (i = 0..m-1); stage 1 ends its forwards at 3m + 2 and its backwards at 4m + 2; stage 0
  // starts backward when its last send is out (3m + 1) and ends 1 after stage 1's last: 4m + 3. m = 4: 19.
  CHECK(pipeline_makespan_s(StageTimes{{1, 1}, {1, 1}, {3, 0}, {0, 0}}, 4) == Approx(19).epsilon(1e-12));
  // Without sends it is GPipe's (m + pp - 1)(f + b).
  CHECK(pipeline_makespan_s(StageTimes{f, b, {}, {}}, 8) == Approx(11 * 3.0).epsilon(1e-12));
  CHECK(pipeline_makespan_s(StageTimes{}, 8) == 0);
}

TEST_CASE("Pipeline closed form: blocking sends put every message on its stage's path", "[sim]")
{
  // The first case above with each stage waiting for its send: stage 0 ends its forwards at 1 and 2.5 (the second
  // waits for the first send, out at 1.5) and its last send is out at 3; stage 1 ends them at 2.5 and 4. Stage 1's
  // backwards end at 6 and 8.5 (waiting for the first send, out at 6.5), arriving at 6.5 and 9; stage 0 ends them at
  // 8.5 and 11.
  CHECK(pipeline_makespan_s(StageTimes{{1, 1}, {2, 2}, {0.5, 0}, {0, 0.5}, true}, 2) == Approx(11).epsilon(1e-12));
  // Uniform stages: a sending stage's unit takes f + d_f forward and b + d_b backward, the last (first) stage's
  // f (b). The forward wave reaches the last stage's last unit after (m + pp - 2)(f + d_f) + f, the backward wave
  // returns in (m + pp - 2)(b + d_b) + b: (m + pp - 2)(f + b + d_f + d_b) + f + b. pp 4, m 8, f 1, b 2, d_f 0.3,
  // d_b 0.2: 10 x 3.5 + 3 = 38, (m - 1)(d_f + d_b) = 3.5 more than overlapped sends give (34.5, above), which put
  // only the fill path's (pp - 1)(d_f + d_b) on it.
  const std::vector<double> f(4, 1.0), b(4, 2.0), df{0.3, 0.3, 0.3, 0}, db{0, 0.2, 0.2, 0.2};
  CHECK(pipeline_makespan_s(StageTimes{f, b, df, db, true}, 8) == Approx(38).epsilon(1e-12));
  // Megatron's 1F1B with an exchange of both messages per micro-batch and neighbour gives the same per micro-batch,
  // f + b + d_f + d_b in the steady state (worked in docs/overlap.md); without sends blocking changes nothing.
  CHECK(pipeline_makespan_s(StageTimes{f, b, {}, {}, true}, 8) == Approx(11 * 3.0).epsilon(1e-12));
}

TEST_CASE("Pipeline closed form: fast fidelity is within 1 % of every message simulated", "[sim]")
{
  // The cases of tests/sim/PipelineGroups_test.cpp and a comm-bound one: 6 MB forward, 3 MB backward per micro-batch;
  // 2 ms forward and 4 ms backward per unit. On 10 Gb/s a forward message takes 4.8 ms, longer than its unit.
  auto rdma = rdma_cluster(4, 8, 100, 5);
  auto tcp  = rdma;
  tcp.network_model    = ccsim::sim::NetworkModel::TCP;
  tcp.fabric_latency_s = 20e-6;
  auto slow            = rdma_cluster(1, 8, 10, 50);
  auto tree            = rdma_cluster(2, 8, 100, 5);
  tree.fabric           = ccsim::sim::FabricKind::FAT_TREE;
  tree.nodes_per_leaf   = 2;
  tree.oversubscription = 2;
  tree.fabric_latency_s = 2e-6;
  auto over             = rdma;
  over.fabric_latency_s = 1e-6;
  over.oversubscription = 4;
  auto rdma8 = rdma_cluster(8, 4, 100, 5);
  struct Case {
    const char* name;
    const ccsim::sim::Topology* topo;
    int dp, tp, pp, m;
  };
  const Case cases[] = {{"rdma, 4 GPUs/node, pp 2, dp 16", &rdma, 16, 1, 2, 4},
                        {"rdma, tp 2, pp 4, dp 4", &rdma, 4, 2, 4, 3},
                        {"tcp with a core, pp 4, dp 8", &tcp, 8, 1, 4, 4},
                        {"10 Gb/s, one GPU per node, pp 4, dp 2 (comm-bound)", &slow, 2, 1, 4, 8},
                        {"fat-tree 2:1, pp 2, dp 8", &tree, 8, 1, 2, 4},
                        {"4:1 core, pp 2, dp 16", &over, 16, 1, 2, 4},
                        {"rdma, tp 8, pp 4, dp 1, 16 micro-batches", &rdma8, 1, 8, 4, 16}};
  for (const auto& k : cases)
    for (const bool blocking : {false, true}) {
      INFO(k.name << (blocking ? ", blocking sends" : ""));
      const auto exact = pipeline_step(*k.topo, k.dp, k.tp, k.pp, k.m, true, ccsim::sim::Fidelity::EXACT, blocking);
      const auto fast  = pipeline_step(*k.topo, k.dp, k.tp, k.pp, k.m, true, ccsim::sim::Fidelity::FAST, blocking);
      REQUIRE(exact.size() == fast.size());
      CHECK(fast[0] == Approx(exact[0]).epsilon(0.01)); // step time
      // A message's time: fast gives the steady state's, exact the mean over all of them, warm-up and cool-down
      // included, when fewer share a NIC (tcp with a core: 2.48 ms against 2.42 ms).
      CHECK(fast[1] == Approx(exact[1]).epsilon(0.05)); // forward message
      CHECK(fast[2] == Approx(exact[2]).epsilon(0.05)); // backward message
      for (std::size_t i = 3; i < exact.size(); ++i) { // bytes, events and link loads are counted, not timed: equal
        INFO("value " << i);
        CHECK(fast[i] == exact[i]);
      }
    }
}
