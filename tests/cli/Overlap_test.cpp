// Overlap and recomputation end to end (docs/overlap.md): "exposed comm" never above "comm" on the shapes that broke
// it (a 70B at tp 8 x pp 4, AQ-SGD's fp32 first epoch on the WAN) and on others, with overlap off and on; the
// switch (--overlap, --bucket-mb) and the workload's setting reported in config.overlap; --recompute charging one
// forward pass per micro-batch.
#include "tests/support/RunCcsim.hpp"

#include <catch2/catch.hpp>
#include <algorithm>
#include <nlohmann/json.hpp>

using ccsim::test::run_ccsim;

namespace {
nlohmann::json simulate_json(const std::string& args)
{
  const auto r = run_ccsim("simulate " + args + " --format json --quiet");
  INFO(args << "\n" << r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out);
}

/// exposed comm <= comm in the whole run and in every phase (1e-12 s for rounding).
void check_exposed_within_comm(const nlohmann::json& d)
{
  const auto& b = d.at("breakdown");
  CHECK(b.at("exposed_comm_s").get<double>() <= b.at("comm_s").get<double>() + 1e-12);
  CHECK(b.at("exposed_comm_s").get<double>() >= 0);
  for (const auto& p : d.at("phases")) {
    INFO(p.at("name").get<std::string>());
    CHECK(p.at("breakdown").at("exposed_comm_s").get<double>() <= p.at("breakdown").at("comm_s").get<double>() + 1e-12);
  }
}
} // namespace

TEST_CASE("Overlap CLI: exposed comm never exceeds comm", "[cli]")
{
  // Issue 29's example: the 70B at tp 8 x pp 4 (exposed 3.26 s > comm 3.17 s before: the pipeline's bubble counted as
  // communication), with and without overlap; AQ-SGD's fp32 first epoch on the WAN (exposed 33.69 > comm 32.01).
  for (const char* overlap : {"none", "bucketed"})
    check_exposed_within_comm(simulate_json(std::string("--topology a100x8-ib100 --workload llama2-70b --algorithm adam "
                                                        "--gpus 256 --tp 8 --pp 4 --overlap ") + overlap));
  check_exposed_within_comm(simulate_json("--topology v100x1-wan --workload gpt2-xl --algorithm aq-sgd --gpus 8 --pp 8 "
                                          "--global-batch 32 --micro-batch 1 --bandwidth-gbps 0.5"));
  check_exposed_within_comm(simulate_json("--topology v100x8-ib100 --workload bert-large --algorithm onebit-adam "
                                          "--gpus 16 --micro-batch 16 --global-batch 256"));
  check_exposed_within_comm(simulate_json("--topology a100x8-ib100 --workload gpt-1.3b --algorithm sdp4bit --gpus 16"));
  check_exposed_within_comm(simulate_json("--topology a100x8-ib100 --workload gpt-1.3b --algorithm sdp4bit --gpus 16 "
                                          "--overlap bucketed --param-prefetch on"));
  check_exposed_within_comm(simulate_json("--topology a100x8-ib100 --workload llama2-7b --algorithm adam --gpus 64 "
                                          "--tp 2 --pp 2 --bucket-mb 25"));
}

TEST_CASE("Overlap CLI: bucketed reduction hides gradient traffic the none setting exposes", "[cli]")
{
  const std::string base = "--topology a100x8-ib100 --workload llama2-7b --algorithm adam --gpus 32 --tp 4 --pp 1 "
                           "--global-batch 32 --micro-batch 1";
  const auto none     = simulate_json(base + " --overlap none --param-prefetch off");
  const auto bucketed = simulate_json(base); // the preset's own: bucketed, 160 MB
  CHECK_FALSE(none.at("config").contains("overlap"));
  REQUIRE(bucketed.at("config").contains("overlap"));
  CHECK(bucketed.at("config").at("overlap").get<std::string>().find("160 MB buckets") != std::string::npos);
  const auto& n = none.at("breakdown");
  const auto& b = bucketed.at("breakdown");
  // No other traffic: without overlap the whole all-reduce is exposed; bucketed, the buckets' total is comm, and
  // what is hidden comes off the step one for one.
  CHECK(n.at("exposed_comm_s").get<double>() == Approx(n.at("comm_s").get<double>()));
  CHECK(b.at("exposed_comm_s").get<double>() < n.at("exposed_comm_s").get<double>());
  CHECK(b.at("compute_s").get<double>() == Approx(n.at("compute_s").get<double>()));
  CHECK(none.at("step_time_s").get<double>() - bucketed.at("step_time_s").get<double>() ==
        Approx(n.at("exposed_comm_s").get<double>() - b.at("exposed_comm_s").get<double>()).epsilon(1e-6));
  // The same bytes cross the network either way.
  CHECK(bucketed.at("bytes_per_gpu").at("inter_node").get<double>() ==
        Approx(none.at("bytes_per_gpu").at("inter_node").get<double>()).epsilon(1e-6));
}

TEST_CASE("Overlap CLI: --recompute adds forward x micro-batches to compute", "[cli]")
{
  const std::string base = "--topology a100x8-ib100 --workload gpt-1.3b --algorithm adam --gpus 16 --tp 1 --pp 1 "
                           "--global-batch 64 --micro-batch 1";
  const auto plain = simulate_json(base);
  const auto again = simulate_json(base + " --recompute");
  CHECK_FALSE(plain.at("memory").at("activation_recomputation").get<bool>());
  CHECK(again.at("memory").at("activation_recomputation").get<bool>());
  const double f     = plain.at("config").at("forward_ms_per_micro_batch").get<double>() / 1e3;
  const double accum = plain.at("config").at("grad_accumulation").get<double>();
  REQUIRE(accum == 4);
  CHECK(again.at("breakdown").at("compute_s").get<double>() - plain.at("breakdown").at("compute_s").get<double>() ==
        Approx(accum * f).epsilon(1e-9));
}

TEST_CASE("Overlap CLI: a bad overlap setting is one line naming the flag or the JSON path", "[cli]")
{
  const auto r = run_ccsim("simulate --topology a100x8-ib100 --workload llama2-7b --algorithm adam --gpus 16 "
                           "--overlap sometimes");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--overlap") != std::string::npos);
  const std::string file = ccsim::test::write_temp_file(
      "overlap-bad.json", R"({"family": "gpt", "params": 1000000, "layers": 2, "hidden": 64, "seq_len": 128,
        "tensors": 8, "flops_per_sample": 1e9, "overlap": {"grad_reduction": "none", "bucket_mb": 25}})");
  const auto w = run_ccsim("simulate --topology a100x8-ib100 --workload " + file +
                           " --algorithm adam --gpus 16 --global-batch 16");
  CHECK(w.exit_code == 2);
  CHECK(ccsim::test::line_count(w.err) == 1);
  CHECK(w.err.find("/overlap/bucket_mb") != std::string::npos);
}

TEST_CASE("Overlap CLI: Streaming DiLoCo's exchange delays its step only by what outlasts tau steps of compute",
          "[cli]")
{
  // BERT-Large on 16 V100 at 0.1 Gbit/s, H = 30, 8 fragments (24 layers / 3): a sending step's fragment all-reduce
  // (comm) runs beside the next tau steps' compute, so the step's exposed time is max(0, comm - tau x compute):
  // tau = 0 exposes it all, tau = 1 the excess over one step's compute, tau = 5 none.
  const std::string base = "--topology v100x4-eth10g --workload bert-large --algorithm streaming-diloco --gpus 16 "
                           "--bandwidth-gbps 0.1 --param inner_steps=30 --param overlap_steps=";
  for (const int tau : {0, 1, 5}) {
    INFO("tau " << tau);
    const auto d = simulate_json(base + std::to_string(tau));
    check_exposed_within_comm(d);
    const auto& sync = d.at("phases").at(1);
    REQUIRE(sync.at("name") == "sync");
    CHECK(sync.at("fraction").get<double>() == Approx(8.0 / 30));
    const double comm    = sync.at("breakdown").at("comm_s").get<double>();
    const double compute = sync.at("breakdown").at("compute_s").get<double>();
    REQUIRE(comm > compute); // 0.1 Gbit/s: one fragment takes longer than a step's compute
    CHECK(sync.at("breakdown").at("exposed_comm_s").get<double>() ==
          Approx(std::max(0.0, comm - tau * compute)).margin(1e-9));
  }
}

TEST_CASE("Overlap CLI: outer_in_backward hides DiLoCo's and Streaming DiLoCo's exchanges under the sending step's "
          "backward pass too",
          "[cli]")
{
  // Streaming DiLoCo Table 4's 1B model (experiments/streaming-diloco/: 24 layers, 0.1 s a step, 1:2 forward to
  // backward, bucketed overlap) on two datacenters at 5 Gbit/s, 8 fragments of 3 layers in bf16 (outer_bits 16).
  const std::string dir  = std::string(CCSIM_SOURCE_DIR) + "/experiments/streaming-diloco/";
  const std::string base = "--topology " + dir + "workers-2dc.json --workload " + dir +
                           "model-1b.json --gpus 2 --bandwidth-gbps 5 --param inner_steps=100 ";
  const auto exposed = [](const nlohmann::json& d, const std::string& phase) {
    for (const auto& p : d.at("phases"))
      if (p.at("name") == phase)
        return std::pair{p.at("breakdown").at("exposed_comm_s").get<double>(),
                         p.at("breakdown").at("comm_s").get<double>()};
    FAIL("no phase " << phase);
    return std::pair{0.0, 0.0};
  };
  const double backward = 0.2 / 3, step = 0.1;
  // τ = 1: the exchange is hidden by the next step's compute, and with outer_in_backward by its own backward pass.
  const std::string streaming = base + "--algorithm streaming-diloco --param outer_bits=16 --param overlap_steps=1 ";
  const auto [after, comm] = exposed(simulate_json(streaming + "--param outer_in_backward=0"), "sync");
  CHECK(after == Approx(comm - step).margin(1e-9));
  const auto [in_backward, comm2] = exposed(simulate_json(streaming + "--param outer_in_backward=1"), "sync");
  CHECK(comm2 == Approx(comm));
  CHECK(in_backward == Approx(comm - step - backward).margin(1e-9));
  // DiLoCo: the outer all-reduce after the step is exposed whole. Under the backward pass in buckets of one layer,
  // the first bucket is ready after 1/24 of the pass and the link stays busy from then on (each bucket takes longer
  // than a layer's backward at 5 Gbit/s), so it ends comm + b/24 after the pass began: comm - 23b/24 is exposed.
  const std::string diloco = base + "--algorithm diloco --param outer_bytes=2 ";
  const auto [d_after, d_comm] = exposed(simulate_json(diloco + "--param outer_in_backward=0"), "outer");
  CHECK(d_after == Approx(d_comm).margin(1e-9));
  const auto [d_in, d_comm2] = exposed(simulate_json(diloco + "--param outer_in_backward=1"), "outer");
  CHECK(d_comm2 == Approx(d_comm).epsilon(1e-3));
  CHECK(d_in == Approx(d_comm2 - backward * 23 / 24).margin(1e-6));
}
