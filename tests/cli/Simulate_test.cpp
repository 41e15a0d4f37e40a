// `ccsim simulate` and `ccsim experiment` on the command line: the JSON contract and the one-line errors.
#include "tests/support/RunCcsim.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using ccsim::test::line_count;
using ccsim::test::run_ccsim;
using ccsim::test::write_temp_file;

namespace {
void check_one_line_error(const ccsim::test::RunResult& r, const std::string& fragment)
{
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(line_count(r.err) == 1);
  CHECK(r.err.find(fragment) != std::string::npos);
}
} // namespace

TEST_CASE("ccsim simulate: --format json carries every field of the contract", "[cli]")
{
  const auto r = run_ccsim("simulate --topology v100x8-ib100 --workload bert-large --algorithm onebit-lamb --gpus 16 "
                           "--micro-batch 64 --format json");
  REQUIRE(r.exit_code == 0);
  const auto d = nlohmann::json::parse(r.out);
  for (const char* k : {"samples_per_s", "step_time_s", "tflops_per_gpu", "breakdown", "bytes_per_gpu", "phases", "sim"})
    CHECK(d.contains(k));
  for (const char* k : {"compute_s", "comm_s", "exposed_comm_s", "compression_s", "optimizer_s", "allreduce_ms"})
    CHECK(d["breakdown"].contains(k));
  REQUIRE(d["phases"].size() == 2); // warm-up and compressed
  // samples/s over the run = batch / (fraction-weighted step time)
  double step = 0;
  for (const auto& p : d["phases"])
    step += p["fraction"].get<double>() * p["step_time_s"].get<double>();
  CHECK(d["step_time_s"].get<double>() == Approx(step));
  CHECK(d["samples_per_s"].get<double>() == Approx(8192 / step));
  // Tokens (issue 44): bert-large's sequences of config.seq_len tokens, 16 GPUs; days per 10^12 tokens at that rate.
  const double seq_len = d["config"]["seq_len"].get<double>();
  REQUIRE(seq_len > 0);
  const double tokens = 8192 * seq_len / step;
  CHECK(d["tokens_per_s"].get<double>() == Approx(tokens).epsilon(1e-12));
  CHECK(d["tokens_per_s_per_gpu"].get<double>() == Approx(tokens / 16).epsilon(1e-12));
  CHECK(d["days_per_1t_tokens"].get<double>() == Approx(1e12 / tokens / 86400).epsilon(1e-12));
}

TEST_CASE("ccsim simulate: more GPUs than the topology has is a one-line error", "[cli]")
{
  check_one_line_error(run_ccsim("simulate --topology v100x8-ib100 --workload bert-large --algorithm lamb --gpus 256"),
                       "--gpus: 256 GPUs requested but topology v100x8-ib100 has 128");
}

TEST_CASE("ccsim simulate: --network-model tcp on a topology with NCCL's latencies is a one-line error, as in a file",
          "[cli]")
{
  // v100x4-eth40g takes NCCL's per-step latencies (nccl.latency_model "nccl"); LV08 would add its slow start to them.
  check_one_line_error(run_ccsim("simulate --topology v100x4-eth40g --workload bert-large --algorithm adam --gpus 8 "
                                 "--network-model tcp"),
                       "--network-model: tcp on a topology whose nccl.latency_model is \"nccl\"");
  // a100x8-ib100 times its steps by its links' latency: tcp is a what-if it allows.
  const auto r = run_ccsim("simulate --topology a100x8-ib100 --workload bert-large --algorithm adam --gpus 16 "
                           "--network-model tcp --quiet");
  INFO(r.err);
  CHECK(r.exit_code == 0);
}

TEST_CASE("ccsim simulate: a global batch not divisible by GPUs x micro-batch is a one-line error", "[cli]")
{
  check_one_line_error(run_ccsim("simulate --topology v100x8-ib100 --workload bert-large --algorithm lamb --gpus 16 "
                                 "--global-batch 1000 --micro-batch 16"),
                       "global batch 1000 is not divisible by data-parallel GPUs x micro-batch = 16 x 16");
}

TEST_CASE("ccsim simulate: an unknown preset or algorithm lists the known ones", "[cli]")
{
  check_one_line_error(run_ccsim("simulate --topology nope --workload bert-large --algorithm lamb --gpus 4"),
                       "--topology: unknown topology preset 'nope' (known: a100x4-slingshot100");
  check_one_line_error(run_ccsim("simulate --topology v100x8-ib100 --workload bert-large --algorithm lamp --gpus 8"),
                       "unknown algorithm 'lamp' (known: adam, aq-sgd");
}

TEST_CASE("ccsim simulate: an unknown --param key names the accepted ones", "[cli]")
{
  check_one_line_error(run_ccsim("simulate --topology v100x8-ib100 --workload bert-large --algorithm slamb --gpus 8 "
                                 "--param kk=0.1"),
                       "'kk' is not a parameter of slamb (accepted: k, grad_bytes, H, seq_len, micro_batches)");
}

TEST_CASE("ccsim simulate: a truncated topology file is reported with its path", "[cli]")
{
  const auto file = write_temp_file("broken.json", "{\"gpu\": {\"name\": \"V100\",");
  check_one_line_error(run_ccsim("simulate --topology " + file + " --workload bert-large --algorithm lamb --gpus 4"),
                       file + ": invalid JSON");
}

TEST_CASE("ccsim simulate: exact and fast fidelity agree within 3% on 64 GPUs", "[cli]")
{
  auto step = [](const char* fidelity) {
    const auto r = run_ccsim(std::string("simulate --topology v100x8-ib100 --workload bert-large --algorithm lamb "
                                         "--gpus 64 --micro-batch 64 --format json --fidelity ") + fidelity);
    REQUIRE(r.exit_code == 0);
    return nlohmann::json::parse(r.out)["breakdown"]["allreduce_ms"].get<double>();
  };
  CHECK(step("fast") == Approx(step("exact")).epsilon(0.03));
}

TEST_CASE("ccsim experiment: a bad axis and a wrong type are one-line errors at their JSON path", "[cli]")
{
  const auto bad_axis = write_temp_file("bad-axis.json", R"({"base": {"topology": "v100x8-ib100", "workload": "bert-large",
    "algorithm": "lamb", "gpus": 8}, "axes": {"gpu": [8, 16]}})");
  check_one_line_error(run_ccsim("experiment " + bad_axis + " --no-plot --out " + bad_axis + ".out"), "/axes/gpu: unknown axis");
  const auto bad_type = write_temp_file("bad-type.json", R"({"base": {"topology": "v100x8-ib100", "workload": "bert-large",
    "algorithm": "lamb", "gpus": "eight"}})");
  check_one_line_error(run_ccsim("experiment " + bad_type + " --no-plot --out " + bad_type + ".out"),
                       "/base/gpus: must be an integer, not string");
}

TEST_CASE("ccsim experiment: axes expand as a cartesian product / speedups against the baseline", "[cli]")
{
  const auto file = write_temp_file("sweep.json", R"({"name": "sweep", "base": {"topology": "v100x8-ib100",
    "workload": "bert-large", "micro_batch": 64, "global_batch": 8192},
    "axes": {"algorithm": ["lamb", "onebit-lamb"], "gpus": [16, 32, 64]}, "baseline": {"algorithm": "lamb"}})");
  const std::string out = file + ".out";
  const auto r = run_ccsim("experiment " + file + " --no-plot --jobs 2 --format json --out " + out);
  REQUIRE(r.exit_code == 0);
  const auto d = nlohmann::json::parse(r.out);
  REQUIRE(d["rows"].size() == 6); // 2 algorithms x 3 GPU counts, last axis fastest
  CHECK(d["rows"][1]["gpus"] == 32);
  CHECK(d["rows"][3]["algorithm"] == "onebit-lamb");
  for (int i = 0; i < 3; ++i) {
    CHECK(d["rows"][i]["speedup"].get<double>() == Approx(1.0));
    const double expected = d["rows"][3 + i]["samples_per_s"].get<double>() / d["rows"][i]["samples_per_s"].get<double>();
    CHECK(d["rows"][3 + i]["speedup"].get<double>() == Approx(expected));
  }
  // the CSV has a header and one line per row
  CHECK(line_count(ccsim::test::read_file(out + "/results.csv")) == 7);
}

TEST_CASE("ccsim experiment: predicted vs paper error is 100 (predicted - paper) / paper", "[cli]")
{
  const auto file = write_temp_file("paper.json", R"({"name": "p", "base": {"topology": "v100x8-ib100",
    "workload": "bert-large", "algorithm": "lamb", "micro_batch": 64, "global_batch": 8192},
    "rows": [{"gpus": 16, "paper": {"allreduce_ms": 270}}, {"gpus": 8, "paper": {"allreduce_ms": 167}}]})");
  const auto r = run_ccsim("experiment " + file + " --no-plot --format json --out " + file + ".out");
  REQUIRE(r.exit_code == 0);
  const auto d = nlohmann::json::parse(r.out);
  std::vector<double> errors;
  for (const auto& row : d["rows"]) {
    const double p = row["predicted"]["allreduce_ms"].get<double>();
    CHECK(row["error_pct"]["allreduce_ms"].get<double>() == Approx(100 * (p - row["paper"]["allreduce_ms"].get<double>()) /
                                                                  row["paper"]["allreduce_ms"].get<double>()));
    errors.push_back(std::abs(row["error_pct"]["allreduce_ms"].get<double>()));
  }
  CHECK(d["median_abs_error_pct"].get<double>() == Approx((errors[0] + errors[1]) / 2)); // median of two
}

TEST_CASE("ccsim experiment: under mpirun -n 2 rank 0 writes exactly the serial rows", "[cli][mpi]")
{
  if (std::system("command -v mpirun >/dev/null 2>&1") != 0) {
    WARN("mpirun not installed: skipped");
    return;
  }
  const auto file = write_temp_file("mpi.json", R"({"name": "m", "base": {"topology": "v100x8-ib100",
    "workload": "bert-large", "algorithm": "lamb", "micro_batch": 64, "global_batch": 8192},
    "axes": {"gpus": [8, 16, 32, 64]}})");
  REQUIRE(run_ccsim("experiment " + file + " --no-plot --out " + file + ".serial").exit_code == 0);
  const std::string cmd = "mpirun --allow-run-as-root --oversubscribe -n 2 " + std::string(CCSIM_BINARY) + " experiment " +
                          file + " --no-plot --out " + file + ".mpi > /dev/null 2>&1";
  REQUIRE(std::system(cmd.c_str()) == 0);
  auto rows = [](const std::string& dir) {
    auto d = nlohmann::json::parse(ccsim::test::read_file(dir + "/results.json"))["rows"];
    for (auto& r : d)
      r.erase("phases"); // identical anyway; keep the comparison readable
    return d;
  };
  CHECK(rows(file + ".serial") == rows(file + ".mpi"));
  CHECK(ccsim::test::read_file(file + ".serial/results.csv") == ccsim::test::read_file(file + ".mpi/results.csv"));
}

TEST_CASE("ccsim simulate: AQ-SGD's first epoch sends fp32 activations and its later steps the quantized ones", "[cli]")
{
  // Each phase of a plan carries its own pipeline message sizes (the step engine once took the first phase's for
  // every phase, pricing AQ-SGD's compressed steps at fp32). GPT2-XL, micro-batch 1 x 1024 tokens x 1600 hidden,
  // defaults fw 4 / bw 8 bits: fp32 = 4·1024·1600 = 6553600 B per message; quantized = values at b bits + one fp16
  // scale per channel: fw 819200 + 3200 = 822400 B, bw 1638400 + 3200 = 1641600 B. Every stage sends as many forward
  // as backward messages, so the phases' bytes per GPU stand in the ratio 2·6553600 / (822400 + 1641600).
  const auto r = run_ccsim("simulate --topology v100x1-wan --workload gpt2-xl --algorithm aq-sgd --gpus 4 --pp 4 "
                           "--format json");
  REQUIRE(r.exit_code == 0);
  const auto phases = nlohmann::json::parse(r.out)["phases"];
  REQUIRE(phases.size() == 2);
  REQUIRE(phases[0]["name"] == "first-epoch");
  REQUIRE(phases[1]["name"] == "compressed");
  const double first      = phases[0]["bytes_per_gpu"]["inter_node"].get<double>();
  const double compressed = phases[1]["bytes_per_gpu"]["inter_node"].get<double>();
  CHECK(first / compressed == Approx(2.0 * 6553600 / (822400 + 1641600)).epsilon(1e-9));
  // and the compressed steps are faster on this 10 Gbps cluster, not equal
  CHECK(phases[1]["step_time_s"].get<double>() < phases[0]["step_time_s"].get<double>());
}

TEST_CASE("ccsim simulate: SDP4Bit's models follow its run rule - accumulation 1 and a batch of dp x 1", "[cli]")
{
  // gpt-6.7b at its Table 8 split (tp 4) on 32 GPUs: dp = 32 / 4 = 8, so the global batch is 8 x 1 x 1 = 8 with
  // accumulation 1 (Appendix B); before, a fixed batch of 64 gave 8 accumulation steps. --global-batch overrides it.
  auto config = [](const std::string& extra) {
    const auto r = run_ccsim("simulate --topology a100x4-slingshot100 --workload gpt-6.7b --algorithm megatron-dp "
                             "--gpus 32 --format json --quiet" + extra);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return nlohmann::json::parse(r.out)["config"];
  };
  const auto rule = config("");
  CHECK(rule["dp"] == 8);
  CHECK(rule["global_batch"] == 8);
  CHECK(rule["grad_accumulation"] == 1);
  CHECK_THAT(rule["batch_rule"].get<std::string>(),
             Catch::StartsWith("workload run rule: dp x micro-batch x accumulation 1 = 8 x 1 x 1 (SDP4Bit appendix B"));
  const auto given = config(" --global-batch 64");
  CHECK(given["global_batch"] == 64);
  CHECK(given["grad_accumulation"] == 8);
  CHECK(given["batch_rule"] == "--global-batch");
  const auto fixed = run_ccsim("simulate --topology v100x8-ib100 --workload bert-large --algorithm adam --gpus 16 "
                               "--format json --quiet");
  REQUIRE(fixed.exit_code == 0);
  CHECK_THAT(nlohmann::json::parse(fixed.out)["config"]["batch_rule"].get<std::string>(),
             Catch::StartsWith("workload default global batch 8192 (1-bit LAMB Table 5"));
}
