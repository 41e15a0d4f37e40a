// `ccsim advise` on the command line: the ranking's arithmetic and its one-line errors.
#include "tests/support/RunCcsim.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using ccsim::test::line_count;
using ccsim::test::run_ccsim;

TEST_CASE("ccsim advise: ranking by epoch time with speedup over the named baseline", "[cli]")
{
  const auto r = run_ccsim("advise --topology v100x4-eth40g --workload bert-large --gpus 32 --epoch-samples 2e6 "
                           "--format json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto d = nlohmann::json::parse(r.out);
  CHECK(d["baseline"] == "adam"); // a BERT (non-GPT, non-pipelined) workload is compared with plain Adam
  CHECK(d["epoch_samples"].get<double>() == Approx(2e6));
  const auto& ranking = d["ranking"];
  REQUIRE(ranking.size() >= 5); // adam, lamb, onebit-adam, onebit-lamb, slamb at least
  double base_rate = 0;
  for (const auto& row : ranking)
    if (row["algorithm"] == "adam")
      base_rate = row["samples_per_s"].get<double>();
  REQUIRE(base_rate > 0);
  double previous = 0;
  for (const auto& row : ranking) {
    const double rate = row["samples_per_s"].get<double>();
    // epoch time = epoch samples / throughput; sorted fastest first; speedup = throughput / the baseline's
    CHECK(row["epoch_time_s"].get<double>() == Approx(2e6 / rate));
    CHECK(row["epoch_time_s"].get<double>() >= previous);
    previous = row["epoch_time_s"].get<double>();
    CHECK(row["speedup"].get<double>() == Approx(rate / base_rate));
    CHECK(row["inter_node_bytes_per_gpu"].get<double>() >= 0);
    CHECK(row["intra_node_bytes_per_gpu"].get<double>() >= 0);
  }
  // no pipeline algorithm is offered for a model that is not pipelined
  for (const auto& row : ranking)
    CHECK(row["algorithm"] != "aq-sgd");
}

TEST_CASE("ccsim advise: a non-positive epoch size is a one-line error naming the option", "[cli]")
{
  const auto r = run_ccsim("advise --topology v100x4-eth40g --workload bert-large --gpus 32 --epoch-samples 0");
  CHECK(r.exit_code == 2);
  CHECK(line_count(r.err) == 1);
  CHECK(r.err.find("--epoch-samples") != std::string::npos);
}
