// `advise --search`: the splits it tries (hand-enumerated) and what it reports of them.
#include "api/advise/ShapeBound.hpp"
#include "api/advise/ShapeSearch.hpp"
#include "api/run/Simulation.hpp"
#include "io/InputError.hpp"
#include "sim/compute/CostModel.hpp"
#include "tests/support/RunCcsim.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace ccsim;
using ccsim::test::run_ccsim;

namespace {
using Split = std::tuple<int, int, std::uint64_t>; // tp, pp, micro-batch

std::set<Split> splits(const std::vector<api::ShapeCandidate>& c)
{
  std::set<Split> out;
  for (const auto& x : c)
    out.insert({x.tp, x.pp, x.micro_batch});
  return out;
}

sim::Topology four_per_node()
{
  sim::Topology t;
  t.gpu.name      = "TEST";
  t.gpus_per_node = 4;
  t.max_nodes     = 2;
  return t;
}

sim::Workload small_model()
{
  sim::Workload w;
  w.heads = 16, w.layers = 4, w.seq_len = 128, w.global_batch = 16;
  return w;
}
} // namespace

TEST_CASE("ShapeSearch: 8 GPUs of 4 per node and a 4-layer model give the 30 hand-counted splits", "[cli]")
{
  // tp in {1, 2, 4} (within a node), pp in {1, 2, 4} (divides 4 layers), tp x pp dividing 8; micro-batches the powers
  // of two dividing 16 / dp:
  //   tp x pp = 1: dp 8, 2 per replica -> {1, 2}          tp x pp = 2 (1x2, 2x1): dp 4 -> {1, 2, 4} each
  //   tp x pp = 4 (1x4, 2x2, 4x1): dp 2 -> {1, 2, 4, 8}   tp x pp = 8 (2x4, 4x2): dp 1 -> {1, 2, 4, 8, 16}
  // = 2 + 2x3 + 3x4 + 2x5 = 30.
  const auto c = api::search_candidates(four_per_node(), small_model(), 8, 16, /*pipeline_algorithm=*/false);
  CHECK(c.size() == 30);
  const auto s = splits(c);
  CHECK(s.size() == 30); // no duplicates
  CHECK(s.count({1, 1, 2}) == 1);
  CHECK(s.count({1, 1, 4}) == 0); // 4 does not divide the 2 samples per replica
  CHECK(s.count({4, 2, 16}) == 1);
  CHECK(s.count({4, 4, 1}) == 0); // 16 GPUs
  CHECK(s.count({8, 1, 1}) == 0); // tp beyond the node
}

TEST_CASE("ShapeSearch: pipeline algorithms need two stages and tp must divide the heads", "[cli]")
{
  auto w  = small_model();
  w.heads = 6; // tp 4 does not divide 6 heads
  const auto c = api::search_candidates(four_per_node(), w, 8, 16, /*pipeline_algorithm=*/true);
  for (const auto& x : c) {
    CHECK(x.pp >= 2);
    CHECK(x.tp != 4);
  }
  // tp in {1, 2}, pp in {2, 4}: (1,2) dp 4 -> 3 sizes, (1,4) and (2,2) dp 2 -> 4 each, (2,4) dp 1 -> 5 = 16.
  CHECK(c.size() == 16);
}

TEST_CASE("ShapeSearch: a model from its architecture also splits its layers + 2 slots, as Llama 3 does", "[cli]")
{
  // 6 layers on 8 GPUs of 4 per node: pp in {1, 2} divides 6 alone; with an architecture 6 + 2 = 8 slots make pp 4
  // too (the first and the last stage one layer fewer: 1, 2, 2, 1); never more stages than layers (not 8). tp x pp
  // dividing 8:
  //   without: tp x pp = 1 (1x1) -> {1, 2}; 2 (1x2, 2x1) -> 3 sizes each; 4 (2x2, 4x1) -> 4 each; 8 (4x2) -> 5 = 21
  //   with:    + (1x4) 4 sizes, (2x4) 5 = 30.
  auto w   = small_model();
  w.layers = 6;
  const auto plain = api::search_candidates(four_per_node(), w, 8, 16, /*pipeline_algorithm=*/false);
  CHECK(plain.size() == 21);
  w.architecture.emplace();
  w.architecture->layers = 6;
  const auto slots = api::search_candidates(four_per_node(), w, 8, 16, /*pipeline_algorithm=*/false);
  CHECK(slots.size() == 30);
  const auto s = splits(slots);
  CHECK(s.count({1, 4, 4}) == 1);
  CHECK(s.count({2, 4, 16}) == 1);
  CHECK(s.count({1, 8, 16}) == 0); // 8 stages of 6 layers
  CHECK(s.count({1, 3, 1}) == 0); // 3 divides 6, but not the 8 GPUs
}

TEST_CASE("ccsim advise --search: Llama 3 405B runs its published pp 16 with 1, 2, 4 or 8 chunks per stage", "[cli]")
{
  // 126 layers + 2 slots = 128 = 16 stages x 8 slots (the Llama 3 paper §3.3.2); before, --pp 16 was refused (16
  // does not divide 126). dp 1 with 32 samples: micro-batches 1 .. 32 (6) x vpp {1, 2, 4, 8} = 24 candidates.
  const std::string run = "advise --search --workload llama3.1-405b --topology h100x8-ib400x8 --gpus 128 "
                          "--global-batch 32 --tp 8 --pp 16 --algorithms megatron-dp --format json --quiet";
  const auto all = run_ccsim(run);
  INFO(all.err);
  REQUIRE(all.exit_code == 0);
  const auto d = nlohmann::json::parse(all.out);
  CHECK(d["evaluation"]["candidates"] == 24);
  REQUIRE(d["ranking"].size() == 1);
  CHECK(d["ranking"][0]["split"]["pp"] == 16);
  CHECK(d["ranking"][0]["split"]["vpp"] == 8); // the smallest bubble, (pp - 1) / (8 m)
  const auto two = run_ccsim(run + " --vpp 2");
  REQUIRE(two.exit_code == 0);
  CHECK(nlohmann::json::parse(two.out)["ranking"][0]["split"]["vpp"] == 2);
  // 3 chunks cut neither 8 slots nor the 126 layers: no split is left.
  const auto three = nlohmann::json::parse(run_ccsim(run + " --vpp 3").out);
  CHECK(three["evaluation"]["candidates"] == 0);
}

TEST_CASE("ShapeSearch: with measured compute profiles only the profiled micro-batches and tp are tried", "[cli]")
{
  auto w = small_model();
  w.compute.push_back({"TEST", 4, 128, 1, 1, 0.01, 0.02, "", "test"});
  w.compute.push_back({"OTHER", 2, 128, 1, 1, 0.01, 0.02, "", "another GPU"});
  const auto c = api::search_candidates(four_per_node(), w, 8, 16, false);
  // micro-batch 4 at tp 1: pp 2 (dp 4, 4 per replica) and pp 4 (dp 2, 8 per replica); pp 1 leaves 2 per replica.
  CHECK(splits(c) == std::set<Split>{{1, 2, 4}, {1, 4, 4}});
}

TEST_CASE("ccsim advise --search: each algorithm at a split no slower than the default one", "[cli]")
{
  // The default split (dp only, micro-batch 16) is one of the candidates, so each algorithm's chosen split is at
  // least as fast, fits the GPU, and the throughput ranks are a permutation ordered by samples/s.
  const auto plain = run_ccsim("advise --topology v100x4-eth10g --workload bert-large --gpus 32 --format json --quiet");
  const auto found =
      run_ccsim("advise --topology v100x4-eth10g --workload bert-large --gpus 32 --format json --quiet --search");
  INFO(plain.err << found.err);
  REQUIRE(plain.exit_code == 0);
  REQUIRE(found.exit_code == 0);
  std::map<std::string, double> default_rate;
  const auto plain_doc = nlohmann::json::parse(plain.out); // kept: a range-for over a temporary's member dangles
  for (const auto& r : plain_doc["ranking"])
    default_rate[r["algorithm"].get<std::string>()] = r["samples_per_s"].get<double>();
  const auto doc = nlohmann::json::parse(found.out);
  CHECK(doc["search"] == true);
  const auto& ranking = doc["ranking"];
  REQUIRE(ranking.size() == default_rate.size());
  std::vector<std::pair<int, double>> by_rank;
  for (const auto& r : ranking) {
    const auto name = r["algorithm"].get<std::string>();
    INFO(name);
    CHECK(r["samples_per_s"].get<double>() >= default_rate.at(name) * (1 - 1e-12));
    CHECK(r["fits_memory"] != "no");
    CHECK(r["search"]["splits_tried"].get<int>() >= r["search"]["splits_that_run"].get<int>());
    CHECK(r["search"]["splits_that_run"].get<int>() >= 1);
    const auto& sp = r["split"];
    CHECK(sp["dp"].get<int>() * sp["tp"].get<int>() * sp["pp"].get<int>() == 32);
    CHECK(sp["dp"].get<int>() * sp["micro_batch"].get<int>() * sp["grad_accumulation"].get<int>() == 8192);
    by_rank.emplace_back(r["throughput_rank"].get<int>(), r["samples_per_s"].get<double>());
  }
  std::sort(by_rank.begin(), by_rank.end());
  for (std::size_t i = 0; i < by_rank.size(); ++i) {
    CHECK(by_rank[i].first == static_cast<int>(i + 1));
    if (i > 0)
      CHECK(by_rank[i].second <= by_rank[i - 1].second);
  }
}

TEST_CASE("ccsim advise --plot: writes the ranking it prints as advise.json beside the figure", "[cli]")
{
  const auto dir = (ccsim::test::temp_dir() / "advise-plot").string();
  const auto r   = run_ccsim("advise --topology v100x4-eth10g --workload bert-large --gpus 32 --format json --quiet "
                             "--plot " + dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto printed = nlohmann::json::parse(r.out);
  std::ifstream in(dir + "/advise.json");
  REQUIRE(in.good());
  const auto written = nlohmann::json::parse(in);
  CHECK(written == printed);
  CHECK(written["title"] == "bert-large on v100x4-eth10g x 32 GPUs");
}

TEST_CASE("ccsim advise --search: pruning by bound returns the exhaustive search's best", "[cli]")
{
  // The bound never exceeds a split's simulated time (api/advise/ShapeBound.hpp), so the pruned search must choose,
  // for every algorithm, the very split (and rate) the exhaustive one does; it must also have pruned something.
  const std::string base = "advise --topology a100x8-ib100 --workload gpt-350m --gpus 16 --global-batch 64 --search "
                           "--algorithms adam,onebit-adam,sdp4bit,zeropp --format json --quiet";
  const auto pruned = run_ccsim(base);
  const auto all    = run_ccsim(base + " --no-prune");
  INFO(pruned.err << all.err);
  REQUIRE(pruned.exit_code == 0);
  REQUIRE(all.exit_code == 0);
  const auto p = nlohmann::json::parse(pruned.out), a = nlohmann::json::parse(all.out);
  CHECK(p["evaluation"]["pruned_by_bound"].get<int>() > 0);
  CHECK(a["evaluation"]["pruned_by_bound"] == 0);
  CHECK(p["evaluation"]["candidates"] == a["evaluation"]["candidates"]);
  CHECK(p["evaluation"]["simulated"].get<int>() + p["evaluation"]["pruned_by_bound"].get<int>() ==
        a["evaluation"]["simulated"].get<int>());
  REQUIRE(p["ranking"].size() == a["ranking"].size());
  REQUIRE(p["ranking"].size() == 4);
  for (std::size_t i = 0; i < a["ranking"].size(); ++i) {
    const auto &x = p["ranking"][i], &y = a["ranking"][i];
    INFO(y["algorithm"]);
    CHECK(x["algorithm"] == y["algorithm"]);
    CHECK(x["split"] == y["split"]);
    CHECK(x["samples_per_s"].get<double>() == y["samples_per_s"].get<double>());
    CHECK(x["search"] == y["search"]);
  }
}

TEST_CASE("ShapeBound: the step bound is the GPipe compute bound or the busiest NIC - never above the simulation",
          "[cli]")
{
  // gpt-350m on 16 A100 (2 nodes), batch 64, tp 2 x pp 4 (dp 2), micro-batch 4: m = 32 / 4 = 8 micro-batches per
  // replica, so the compute bound is (m + pp - 1)(f + b) = 11 (f + b) with f, b the engine's own per micro-batch.
  api::SimulateRequest req;
  req.topology     = std::string("a100x8-ib100");
  req.workload     = std::string("gpt-350m");
  req.algorithm    = "adam";
  req.gpus         = 16;
  req.global_batch = 64;
  req.tp = 2, req.pp = 4, req.micro_batch = 4;
  const auto run = api::resolve_run(req);
  const auto t   = sim::compute_times(run.topo, run.work, run.shape);
  CHECK(run.shape.grad_accumulation == 8);
  CHECK(api::compute_lower_bound_s(run) == Approx(11 * (t.forward_s + t.backward_s)).epsilon(1e-12));
  const double bound = api::step_lower_bound_s(run);
  CHECK(bound >= api::compute_lower_bound_s(run));
  const auto simulated = api::run_simulation_isolated(req);
  CHECK(bound <= simulated.step_time_s);
  // Interleaved (vpp 2: gpt-350m's 24 layers make 3 per chunk at pp 4): the bubble is (pp - 1) / vpp micro-batches of
  // work, so the bound is (8 + 3 / 2)(f + b) = 9.5 (f + b), and the simulated interleaved step is no faster.
  req.vpp              = 2;
  const auto interleaved = api::resolve_run(req);
  CHECK(api::compute_lower_bound_s(interleaved) == Approx(9.5 * (t.forward_s + t.backward_s)).epsilon(1e-12));
  CHECK(api::step_lower_bound_s(interleaved) <= api::run_simulation_isolated(req).step_time_s);
  req.vpp.reset();
  // Every split of another algorithm at this size: bound <= simulated step.
  for (const int pp : {1, 2}) {
    req.algorithm = "onebit-adam";
    req.pp        = pp;
    const auto r  = api::resolve_run(req);
    INFO("pp " << pp);
    CHECK(api::step_lower_bound_s(r) <= api::run_simulation_isolated(req).step_time_s);
  }
}

TEST_CASE("ShapeBound: the search runs each split at the lightest recomputation mode that fits - never slower",
          "[cli]")
{
  // Korthikanti et al. 2022's 22B GPT (recipe: selective recomputation) on 8 A100 80 GB at tp 8, dp 1. A micro-batch
  // of 1 fits without recomputation; at 8 only selective fits (the attention core's activations are 5as/h of the
  // 34 + 5as/h bytes per element, Korthikanti et al. Eq. 2). The search's choice is the first of none, selective that
  // simulate accepts without full recomputation, and the lighter mode's step is never slower.
  api::SimulateRequest req;
  req.topology     = std::string("a100x8-ib200x8");
  req.workload     = std::string(CCSIM_SOURCE_DIR "/experiments/large-scale/gpt-22b-selective.json");
  req.algorithm    = "megatron-dp";
  req.gpus         = 8;
  req.global_batch = 8;
  req.tp = 8, req.pp = 1;
  api::InputCache cache;
  std::set<std::string> chosen;
  for (const std::uint64_t mb : {1, 8}) {
    req.micro_batch = mb;
    std::optional<std::string> lightest;
    for (const char* mode : {"none", "selective"}) {
      auto r      = req;
      r.recompute = mode;
      try {
        if (!api::resolve_run(r).recompute) {
          lightest = mode;
          break;
        }
      } catch (const io::InputError&) {
      }
    }
    const auto triage = api::triage_shape(req, cache, /*search_recompute=*/true);
    INFO("micro-batch " << mb);
    REQUIRE(triage.kind == api::ShapeTriage::Kind::RUNS);
    CHECK(triage.recompute_mode == lightest);
    chosen.insert(lightest.value_or("full"));
    // Dominance: at the chosen mode the step is no slower than at every heavier one that runs.
    auto at = [&](const char* mode) {
      auto r      = req;
      r.recompute = mode;
      return api::run_simulation_isolated(r).step_time_s;
    };
    if (lightest == std::optional<std::string>("none"))
      CHECK(at("none") < at("selective"));
    if (lightest)
      CHECK(at(lightest->c_str()) < at("full"));
  }
  CHECK(chosen == std::set<std::string>{"none", "selective"});
  // The whole search reports the mode it ran with.
  const auto r = run_ccsim("advise --topology a100x8-ib200x8 --workload " CCSIM_SOURCE_DIR
                           "/experiments/large-scale/gpt-22b-selective.json --gpus 8 --global-batch 8 --tp 8 --pp 1 "
                           "--algorithms megatron-dp --search --format json --quiet");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["ranking"].size() == 1);
  CHECK(j["ranking"][0]["split"]["recompute"] == "none");
}
