// `ccsim bench-kernels`: the JSON shape the simulator's KernelOp costs are read from, and the no-device error.
// No timing thresholds here (speed targets live in the benchmark itself); only "the kernel ran and took time".
#include "numerics/cuda/Device.hpp"
#include "tests/support/RunCcsim.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <set>
#include <string>

using ccsim::test::line_count;
using ccsim::test::run_ccsim;

namespace {
// The names sim/ KernelOps use (docs/design/DESIGN.md, issue 3 "Benchmark"): they must appear exactly like this.
const std::set<std::string> k_required = {"memcpy",          "onebit_compress", "onebit_decompress",
                                          "quant_int4_g128", "quant_int8_g128", "hadamard32_quant_int4",
                                          "randk_gather",    "topk",            "aq_delta_quant",
                                          "aq_delta_traffic"};
} // namespace

TEST_CASE("ccsim bench-kernels: cpu json rows name every kernel with positive GB/s", "[cli]")
{
  // 1 MiB and 1 repeat keep it fast; the rows must still carry the requested input size.
  const auto r = run_ccsim("bench-kernels --backend cpu --bytes 1048576 --repeats 1 --format json");
  REQUIRE(r.exit_code == 0);
  const auto doc = nlohmann::json::parse(r.out);
  REQUIRE(doc.contains("rows"));
  REQUIRE(doc["rows"].is_array());
  std::set<std::string> seen;
  for (const auto& row : doc["rows"]) {
    const auto kernel = row.at("kernel").get<std::string>();
    seen.insert(kernel);
    CHECK(row.at("backend").get<std::string>() == "cpu");
    CHECK(row.at("bytes").get<std::uint64_t>() > 0);
    CHECK(row.at("bytes").get<std::uint64_t>() <= 1048576u);
    CHECK(row.at("GBps").get<double>() > 0);
    CHECK(row.at("vs_memcpy").get<double>() > 0);
  }
  for (const auto& name : k_required)
    CHECK(seen.count(name) == 1);
  // memcpy is the reference: first row, ratio exactly 1 (gbps / itself).
  CHECK(doc["rows"][0].at("kernel").get<std::string>() == "memcpy");
  CHECK(doc["rows"][0].at("vs_memcpy").get<double>() == 1.0);
}

TEST_CASE("ccsim bench-kernels: the table names each kernel once", "[cli]")
{
  const auto r = run_ccsim("bench-kernels --bytes 1048576 --repeats 1");
  REQUIRE(r.exit_code == 0);
  for (const auto& name : k_required)
    CHECK(r.out.find(name) != std::string::npos);
}

TEST_CASE("ccsim bench-kernels: --backend cuda without a device is one line and exit 2", "[cli]")
{
  if (ccsim::numerics::cuda::device_count() > 0) {
    WARN("a CUDA device is present: the no-device error cannot be shown here");
    return;
  }
  const auto r = run_ccsim("bench-kernels --backend cuda --bytes 1048576 --repeats 1 --format json");
  CHECK(r.exit_code == 2);
  CHECK(line_count(r.err) == 1);
  CHECK(r.err.find("cuda") != std::string::npos);
  CHECK(r.out.empty());
}

TEST_CASE("ccsim bench-kernels: an unknown backend is rejected naming the option", "[cli]")
{
  const auto r = run_ccsim("bench-kernels --backend tpu --bytes 1048576 --repeats 1");
  CHECK(r.exit_code == 2);
  CHECK(line_count(r.err) == 1);
  CHECK(r.err.find("--backend") != std::string::npos);
}

TEST_CASE("ccsim bench-kernels: CCSIM_SIMD caps the vector path and a bad value is a one-line error", "[cli]")
{
  setenv("CCSIM_SIMD", "scalar", 1);
  const auto scalar = ccsim::test::run_ccsim("bench-kernels --bytes 65536 --repeats 1 --format json");
  setenv("CCSIM_SIMD", "sse9", 1);
  const auto bad = ccsim::test::run_ccsim("bench-kernels --bytes 65536 --repeats 1");
  unsetenv("CCSIM_SIMD");
  REQUIRE(scalar.exit_code == 0);
  CHECK(nlohmann::json::parse(scalar.out)["simd"] == "scalar");
  CHECK(bad.exit_code == 2);
  CHECK(ccsim::test::line_count(bad.err) == 1);
  CHECK(bad.err.find("CCSIM_SIMD") != std::string::npos);
}

TEST_CASE("ccsim bench-kernels: --threads runs every kernel and says so, a bad count is one line and exit 2", "[cli]")
{
  const auto r = run_ccsim("bench-kernels --bytes 1048576 --repeats 1 --threads 2 --format json");
  REQUIRE(r.exit_code == 0);
  const auto doc = nlohmann::json::parse(r.out);
  CHECK(doc.at("threads").get<int>() == 2);
  CHECK(doc.at("rows").size() == k_required.size());
  for (const char* bad : {"0", "1025", "two", "1.5"}) {
    const auto e = run_ccsim(std::string("bench-kernels --bytes 1048576 --repeats 1 --threads ") + bad);
    INFO(bad);
    CHECK(e.exit_code == 2);
    CHECK(line_count(e.err) == 1);
    CHECK(e.err.find("--threads") != std::string::npos);
    CHECK(e.out.empty());
  }
}

TEST_CASE("ccsim bench-kernels: threads the system will not start are one line and exit 1 - not an abort", "[cli]")
{
  // 1,024 threads of 8 MiB stacks need 8 GiB of address space; under a 2 GiB limit the system refuses some
  // (issue 33: 500 threads under 4 GiB aborted with "terminate called without an active exception").
  const std::string err = (ccsim::test::temp_dir() / "threads-limit.err").string();
  const std::string cmd = "ulimit -s 8192 && ulimit -v 2097152 && " + std::string(CCSIM_BINARY) +
                          " bench-kernels --bytes 1048576 --repeats 1 --threads 1024 >/dev/null 2>" + err;
  const int status = std::system(("bash -c '" + cmd + "'").c_str());
  const auto text  = ccsim::test::read_file(err);
  INFO(text);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 1);
  CHECK(line_count(text) == 1);
  CHECK(text.rfind("ccsim bench-kernels: cannot start 1024 threads: the system refused thread ", 0) == 0);
}
