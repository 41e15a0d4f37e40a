// `ccsim bench-compute`: the comparison of a committed device measurement with the model (no GPU needed), and the
// one-line refusals. Measuring needs a CUDA device: here it is the no-device error.
#include "numerics/cuda/Device.hpp"
#include "tests/support/RunCcsim.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using ccsim::test::line_count;
using ccsim::test::run_ccsim;

namespace {
const std::string kMeasured = std::string(CCSIM_SOURCE_DIR) + "/topologies/data/h200-compute-measured.json";
}

TEST_CASE("ccsim bench-compute: --compare --fit prints the fitted block and every layer's error", "[cli]")
{
  const auto r = run_ccsim("bench-compute --compare " + kMeasured + " --topology h200x8-ib400x8 --fit --format json");
  REQUIRE(r.exit_code == 0);
  const auto doc = nlohmann::json::parse(r.out);
  const auto& fit = doc.at("fitted_compute");
  for (const char* key : {"gemm_efficiency", "tile_overhead_us", "l2_gbps", "launch_us", "flash_attention",
                          "memory_efficiency"})
    CHECK(fit.contains(key));
  CHECK(doc.at("layers").size() == 14); // seven layers, with FlashAttention-2 and with cuDNN attention
  for (const auto& layer : doc["layers"])
    CHECK(layer.contains("fitted_error"));
  const auto table = run_ccsim("bench-compute --compare " + kMeasured + " --topology h200x8-ib400x8");
  REQUIRE(table.exit_code == 0);
  CHECK(table.out.find("measured: ccsim bench-compute --backend cuda on NVIDIA H200") != std::string::npos);
}

TEST_CASE("ccsim bench-compute: options that do not go together are one line and exit 2", "[cli]")
{
  for (const std::string& args : std::vector<std::string>{"--compare " + kMeasured, "--compare " + kMeasured + " --topology h200x8-ib400x8 --quick",
                                 "--fit", "--topology h200x8-ib400x8",
                                 "--compare " + kMeasured + " --topology no-such-preset"}) {
    const auto r = run_ccsim("bench-compute " + args);
    INFO(args << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(line_count(r.err) == 1);
  }
}

TEST_CASE("ccsim bench-compute: measuring without a CUDA device is one line and exit 2", "[cli]")
{
  if (ccsim::numerics::cuda::device_count() > 0) {
    WARN("a CUDA device is present: the no-device error cannot be shown here");
    return;
  }
  const auto r = run_ccsim("bench-compute --quick");
  CHECK(r.exit_code == 2);
  CHECK(line_count(r.err) == 1);
  // A build with CUDA says it found no device; one without (the sanitizer build) says so instead.
  CHECK((r.err.find("no CUDA device") != std::string::npos || r.err.find("built without CUDA") != std::string::npos));
}
