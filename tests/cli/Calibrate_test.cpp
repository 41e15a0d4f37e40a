// `ccsim calibrate`: a round trip through a known alpha-beta cluster (simulate the "measurement" with ccsim collective
// on known NIC constants, fit from a base topology with other constants, recover the known ones), nccl-tests' own
// text layout, and one-line errors for what it cannot use.
#include "api/calibration/NcclTestsText.hpp"
#include "io/JsonInput.hpp"
#include "tests/support/RunCcsim.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

using ccsim::test::line_count;
using ccsim::test::read_file;
using ccsim::test::run_ccsim;
using ccsim::test::temp_dir;
using ccsim::test::write_temp_file;

namespace {
/// `ccsim collective` text turned into nccl-tests' own layout: its "# nThread" header and one "#  Rank" line per
/// rank (how nccl-tests says how many ranks ran), no "# ccsim collective:" line, times rounded to 2 decimals as
/// all_reduce_perf prints them.
std::string as_nccl_tests(const std::string& ccsim_text, int ranks)
{
  std::ostringstream out;
  out << "# nThread 1 nGpus 1 minBytes 4096 maxBytes 536870912 step: 8(factor) warmup iters: 5 iters: 20\n#\n"
      << "# Using devices\n";
  for (int r = 0; r < ranks; ++r)
    out << "#  Rank " << r << " Group  0 Pid  " << 1000 + r << " on node" << r / 8 << " device  " << r % 8
        << " [0x07] NVIDIA A100-SXM4-80GB\n";
  std::istringstream in(ccsim_text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# ccsim collective:", 0) == 0)
      continue;
    if (line.empty() || line[0] == '#') {
      out << line << "\n";
      continue;
    }
    std::istringstream cols(line);
    std::vector<std::string> t;
    for (std::string c; cols >> c;)
      t.push_back(c);
    char time[32];
    std::snprintf(time, sizeof time, "%.2f", std::stod(t[5]));
    out << t[0] << " " << t[1] << " " << t[2] << " " << t[3] << " " << t[4] << " " << time << " " << t[6] << " "
        << t[7] << " 0 " << time << " " << t[10] << " " << t[11] << " 0\n";
  }
  return out.str();
}
} // namespace

TEST_CASE("ccsim calibrate: recovers the NIC bandwidth and latency of a known alpha-beta cluster", "[cli]")
{
  // W1 measured at 40 Gbps and 7 us (collective's overrides), fitted from W1's own 100 Gbps and 1 us. ccsim prints
  // times to 1 ns, so the fit can land within 1e-4 of the truth (issue 12 asks for 2 %).
  const auto measured = run_ccsim("collective --topology w1-ring100g --gpus 64 -b 1K -e 1G -f 4 --bandwidth-gbps 40 "
                                  "--latency-us 7 --quiet");
  REQUIRE(measured.exit_code == 0);
  const auto file = write_temp_file("w1-measured.txt", measured.out);
  const auto out  = (temp_dir() / "w1-calibrated.json").string();
  const auto r    = run_ccsim("calibrate --topology w1-ring100g --nccl-tests " + file + " --out " + out + " --format json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto d = nlohmann::json::parse(r.out);
  CHECK(d["effective_gbps"].get<double>() == Approx(40).epsilon(1e-4));
  CHECK(d["latency_us"].get<double>() == Approx(7).epsilon(1e-4));
  CHECK(d["rms_relative_error"].get<double>() < 1e-5);
  // The written topology carries them, says where they came from, and simulates the measurement back.
  const auto topo = nlohmann::json::parse(read_file(out));
  CHECK(topo["nic"]["effective_gbps"].get<double>() == Approx(40).epsilon(1e-4));
  CHECK(topo["nic"]["source_calibration"].get<std::string>().find("w1-measured.txt") != std::string::npos);
  const auto again = run_ccsim("collective --topology " + out + " --gpus 64 -b 1G -e 1G --format json --quiet");
  REQUIRE(again.exit_code == 0);
  // 2 (N-1) (S/N / (40e9/8) + 2 x 7 us), N = 64, S = 2^30: the alpha-beta closed form of the measured cluster.
  const double expected_us = 2.0 * 63 * (1073741824.0 / 64 / 5e9 + 14e-6) * 1e6;
  CHECK(nlohmann::json::parse(again.out)["rows"][0]["time_us"].get<double>() == Approx(expected_us).epsilon(1e-4));
}

TEST_CASE("ccsim calibrate --no-fit: replays a log on the topology as it is and writes nothing", "[cli]")
{
  // W1 measured at 40 Gbps and 7 us, replayed on W1 itself (100 Gbps, 1 us): each size's replay is the alpha-beta
  // closed form of the preset, not of the measurement, and nothing is fitted.
  const auto measured = run_ccsim("collective --topology w1-ring100g --gpus 64 -b 1M -e 1G -f 32 --bandwidth-gbps 40 "
                                  "--latency-us 7 --quiet");
  REQUIRE(measured.exit_code == 0);
  const auto file = write_temp_file("w1-no-fit.txt", measured.out);
  const auto r    = run_ccsim("calibrate --topology w1-ring100g --nccl-tests " + file + " --no-fit --format json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto d = nlohmann::json::parse(r.out);
  CHECK(d["fitted"] == false);
  CHECK(d["topology"].is_null());
  CHECK(d["constants"].empty());
  CHECK(!d.contains("effective_gbps"));
  const auto& last = d["rows"].back();
  REQUIRE(last["size"].get<std::uint64_t>() == 1073741824u);
  // 2 (N-1) (S/N / (100e9/8) + 2 x 1 us) and 2 (N-1) (S/N / (40e9/8) + 2 x 7 us), N = 64, S = 2^30.
  const double preset_us   = 2.0 * 63 * (1073741824.0 / 64 / 12.5e9 + 2e-6) * 1e6;
  const double measured_us = 2.0 * 63 * (1073741824.0 / 64 / 5e9 + 14e-6) * 1e6;
  CHECK(last["predicted_us"].get<double>() == Approx(preset_us).epsilon(1e-4));
  CHECK(last["error"].get<double>() == Approx(preset_us / measured_us - 1).epsilon(1e-4));

  // A topology calibrated on the log replays it back: --no-fit gives the fit's own replay, and leaves the file alone.
  const auto out = (temp_dir() / "w1-no-fit-calibrated.json").string();
  REQUIRE(run_ccsim("calibrate --topology w1-ring100g --nccl-tests " + file + " --out " + out).exit_code == 0);
  const std::string before = read_file(out);
  const auto again = run_ccsim("calibrate --topology " + out + " --nccl-tests " + file + " --no-fit --format json");
  REQUIRE(again.exit_code == 0);
  CHECK(nlohmann::json::parse(again.out)["rms_relative_error"].get<double>() < 1e-5);
  CHECK(read_file(out) == before);

  // The table says that nothing was fitted or written.
  const auto table = run_ccsim("calibrate --topology w1-ring100g --nccl-tests " + file + " --no-fit");
  REQUIRE(table.exit_code == 0);
  CHECK(table.out.find("nothing written (--no-fit)") != std::string::npos);
}

TEST_CASE("ccsim calibrate: --out goes with a fit, --no-fit with --nccl-tests, each refused in one line", "[cli]")
{
  const auto measured = run_ccsim("collective --topology w1-ring100g --gpus 8 -b 1M -e 4M -f 4 --quiet");
  REQUIRE(measured.exit_code == 0);
  const auto file  = write_temp_file("w1-no-fit-errors.txt", measured.out);
  const auto steps = write_temp_file("w1-no-fit-steps.json", R"({"name": "s",
    "base": {"topology": "w1-ring100g", "workload": "bert-large", "algorithm": "adam", "global_batch": 64,
    "micro_batch": 16}, "rows": [{"gpus": 2, "paper": {"allreduce_ms": 100}}]})");
  const std::string out = (temp_dir() / "w1-no-fit-never.json").string();
  const struct {
    std::string args, says;
  } cases[] = {
      {"--nccl-tests " + file + " --no-fit --out " + out, "ccsim: --out: --no-fit fits nothing"},
      {"--nccl-tests " + file, "ccsim: --out: is required but missing"},
      {"--steps " + steps + " --no-fit", "ccsim: --no-fit: replays --nccl-tests logs"},
  };
  for (const auto& c : cases) {
    const auto r = run_ccsim("calibrate --topology w1-ring100g " + c.args);
    INFO(c.args << "\n" << r.err);
    CHECK(r.exit_code == 2);
    CHECK(line_count(r.err) == 1);
    CHECK(r.err.rfind(c.says, 0) == 0);
  }
  CHECK(!std::ifstream(out).good());
}

TEST_CASE("ccsim calibrate: reads nccl-tests' own layout on an 8-GPU-per-node cluster", "[cli]")
{
  // a100x8-ib100 delivers a share (effective / nominal) of its nominal rate; measured at a nominal 50 Gbps and 9 us,
  // the fit must find the delivered 50 x share and 9 us from a file that counts its ranks in "#  Rank" lines and
  // rounds times to 10 ns.
  const auto measured = run_ccsim("collective --topology a100x8-ib100 --gpus 32 -b 4K -e 512M -f 8 "
                                  "--bandwidth-gbps 50 --latency-us 9 --quiet");
  REQUIRE(measured.exit_code == 0);
  const auto file = write_temp_file("a100-nccl.txt", as_nccl_tests(measured.out, 32));
  const auto out  = (temp_dir() / "a100-calibrated.json").string();
  // This file does not name its collective: busbw / algbw = 2(n-1)/n > 1 says all_reduce (only its bus factor
  // exceeds 1), and the 32 "#  Rank" lines say how many ranks ran.
  const auto r = run_ccsim("calibrate --topology a100x8-ib100 --nccl-tests " + file + " --out " + out + " --format json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto d = nlohmann::json::parse(r.out);
  CHECK(d["op"] == "all_reduce");
  CHECK(d["logs"][0]["op_from"].get<std::string>().find("inferred from the table") == 0);
  CHECK(d["logs"][0]["ranks_from"] == "header");
  CHECK(d["ranks"] == 32);
  const auto preset  = nlohmann::json::parse(read_file(std::string(CCSIM_SOURCE_DIR) + "/topologies/a100x8-ib100.json"));
  const double share = preset["nic"]["effective_gbps"].get<double>() / preset["nic"]["bandwidth_gbps"].get<double>();
  CHECK(d["effective_gbps"].get<double>() == Approx(50 * share).epsilon(1e-3));
  CHECK(d["latency_us"].get<double>() == Approx(9).epsilon(1e-3));
}

TEST_CASE("ccsim calibrate: a malformed nccl-tests file is one line naming the file and the line", "[cli]")
{
  const auto file = write_temp_file("broken-nccl.txt", "# ccsim collective: all_reduce on w1 (8 ranks, 1 per node)\n"
                                                       "1024 256 float sum -1 12.5 0.1 0.1 0 12.5 0.1 0.1 0\n"
                                                       "2048 512 float sum -1 nan 0.1 0.1 0 12.5 0.1 0.1 0\n");
  const auto r = run_ccsim("calibrate --topology w1-ring100g --nccl-tests " + file + " --out " +
                           (temp_dir() / "never.json").string());
  CHECK(r.exit_code == 2);
  CHECK(line_count(r.err) == 1);
  CHECK(r.err.find("broken-nccl.txt: line 3") != std::string::npos);
  // A header cut after " (" is one line too, not an internal error.
  const auto cut = write_temp_file("cut-nccl.txt", "# ccsim collective: all_reduce on w1 (\n"
                                                   "1024 256 float sum -1 12.5 0.1 0.1 0 12.5 0.1 0.1 0\n");
  const auto c = run_ccsim("calibrate --topology w1-ring100g --nccl-tests " + cut + " --out " +
                           (temp_dir() / "never.json").string());
  CHECK(c.exit_code == 2);
  CHECK(line_count(c.err) == 1);
  CHECK(c.err.find("cut-nccl.txt: line 1") != std::string::npos);
}

TEST_CASE("ccsim calibrate: an nccl-tests file of more than 1000 rows is one line at row 1001", "[cli]")
{
  // Each fit iteration simulates every row: 100,000 rows took over 20 s (issue 33). 1,000 is 24 times the 41 rows of
  // a doubling sweep from 1 byte to 1 TiB.
  std::string text = "# ccsim collective: all_reduce on w1 (8 ranks, 1 per node)\n";
  for (int i = 1; i <= 1001; ++i)
    text += std::to_string(1024 * i) + " 256 float sum -1 12.5 0.1 0.1 0 12.5 0.1 0.1 0\n";
  const auto file = write_temp_file("long-nccl.txt", text);
  const auto r    = run_ccsim("calibrate --topology w1-ring100g --nccl-tests " + file + " --out " +
                           (temp_dir() / "never.json").string());
  CHECK(r.exit_code == 2);
  CHECK(line_count(r.err) == 1);
  CHECK(r.err.find("long-nccl.txt: line 1002: more than 1000 rows: the limit") != std::string::npos);
}

TEST_CASE("ccsim calibrate: mutated nccl-tests lines load or are one InputError line naming the file", "[mutation]")
{
  const std::string good = "# ccsim collective: all_reduce on w1 (8 ranks, 1 per node)\n"
                           "1024 256 float sum -1 12.5 0.1 0.1 0 12.5 0.1 0.1 0\n"
                           "2048 512 float sum -1 14.5 0.1 0.1 0 14.5 0.1 0.1 0\n";
  const std::vector<std::string> values = {"-1", "0", "nan", "inf", "1e999", "18446744073709551616", "",
                                           "\xff\xfe", "x", std::string(100000, '7'), "1.5", "0x10"};
  const auto path = (temp_dir() / "mutated-nccl.txt").string();
  int rejected = 0;
  for (std::size_t column = 0; column < 13; ++column)
    for (const auto& v : values) {
      std::istringstream in(good);
      std::string text, line;
      std::getline(in, line);
      text = line + "\n";
      std::getline(in, line);
      std::istringstream cols(line);
      std::vector<std::string> t;
      for (std::string c; cols >> c;)
        t.push_back(c);
      t[column] = v;
      for (const auto& c : t)
        text += c + " ";
      std::getline(in, line);
      text += "\n" + line + "\n";
      std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
      INFO("column " << column << " = '" << v.substr(0, 20) << "'");
      try {
        (void)ccsim::api::read_nccl_tests(path);
      } catch (const ccsim::io::InputError& e) {
        const std::string msg = e.what();
        CHECK(msg.find('\n') == std::string::npos);
        CHECK(msg.find(path) != std::string::npos);
        ++rejected;
      }
    }
  CHECK(rejected >= 2 * static_cast<int>(values.size())); // every bad size and every bad time at least
}
