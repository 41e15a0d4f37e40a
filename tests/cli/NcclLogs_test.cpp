// Issue 28 on real logs (tests/data/nccl-tests-real, published by others; README.md there names each source): every
// visible log calibrated with `ccsim calibrate` on the preset of its cluster, then replayed with `ccsim collective` at
// its sizes, out-of-place time against the log's; a fit on fewer GPUs predicting more; forced algorithms against the
// alpha-beta closed forms; and the line-rate warning.
//
// The thresholds are the (median |error| <= 5 %, no size worse than 20 %) where a log can meet them;
// logs 10, 11 and 14 hold sizes whose time falls as size doubles or whose bandwidth exceeds every line rate. Where it cannot, the test holds what it can and says why.
#include "tests/support/RunCcsim.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

using ccsim::test::read_file;
using ccsim::test::run_ccsim;
using ccsim::test::temp_dir;

namespace {
std::string log_path(const std::string& stem)
{
  return std::string(CCSIM_SOURCE_DIR) + "/tests/data/nccl-tests-real/" + stem + ".txt";
}

/// A log's rows as the log prints them: size -> out-of-place time (us), and the rows flagged as bad measurements.
struct LogRows {
  std::map<std::uint64_t, double> time_us;
  std::set<std::uint64_t> flagged;
};

/// The replayed |error| of each row not flagged, after `calibrate` of `preset` on `stems`; the replay is `ccsim
/// collective` on the calibrated topology at the log's sizes, independent of calibrate's own report.
std::map<std::uint64_t, double> calibrate_and_replay(const std::string& preset, const std::vector<std::string>& stems,
                                                     const std::string& flags, const std::string& replay_stem,
                                                     const std::string& collective_flags = "")
{
  const auto out = (temp_dir() / ("nccl-" + preset + "-" + stems.front() + ".json")).string();
  std::string files;
  for (const auto& s : stems)
    files += " --nccl-tests " + log_path(s);
  const auto c = run_ccsim("calibrate --topology " + preset + files + " " + flags + " --out " + out + " --format json");
  INFO(c.err);
  REQUIRE(c.exit_code == 0);
  const auto fit = nlohmann::json::parse(c.out);
  LogRows log;
  for (const auto& row : fit.at("rows"))
    if (row.at("file").get<std::string>() == log_path(replay_stem)) {
      log.time_us[row.at("size").get<std::uint64_t>()] = row.at("measured_us").get<double>();
      if (row.at("flagged").get<bool>())
        log.flagged.insert(row.at("size").get<std::uint64_t>());
    }
  REQUIRE(!log.time_us.empty());
  std::map<std::uint64_t, double> errors;
  const int ranks = [&] {
    for (const auto& l : fit.at("logs"))
      if (l.at("file").get<std::string>() == log_path(replay_stem))
        return l.at("ranks").get<int>();
    return 0;
  }();
  const std::string op = [&] {
    for (const auto& l : fit.at("logs"))
      if (l.at("file").get<std::string>() == log_path(replay_stem))
        return l.at("op").get<std::string>();
    return std::string();
  }();
  for (const auto& [size, measured] : log.time_us) {
    if (log.flagged.count(size))
      continue;
    const auto r = run_ccsim("collective --topology " + out + " --op " + op + " --gpus " + std::to_string(ranks) +
                             " -b " + std::to_string(size) + " -e " + std::to_string(size) + " --format json --quiet " +
                             collective_flags);
    REQUIRE(r.exit_code == 0);
    const double replayed = nlohmann::json::parse(r.out).at("rows").at(0).at("time_us").get<double>();
    errors[size]          = std::abs(replayed / measured - 1);
  }
  return errors;
}

double median(std::map<std::uint64_t, double> errors)
{
  std::vector<double> v;
  for (const auto& [size, e] : errors)
    v.push_back(e);
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double worst(const std::map<std::uint64_t, double>& errors)
{
  double w = 0;
  for (const auto& [size, e] : errors)
    w = std::max(w, e);
  return w;
}

/// The target for a log: median <= 5 %, no size worse than 20 %.
void check_target(const std::string& preset, const std::string& stem, const std::string& flags = "")
{
  const auto e = calibrate_and_replay(preset, {stem}, flags, stem);
  INFO(stem << " on " << preset << ": median " << 100 * median(e) << " %, worst " << 100 * worst(e) << " %");
  CHECK(median(e) <= 0.05);
  CHECK(worst(e) <= 0.20);
}
} // namespace

TEST_CASE("NcclLogs: 01 H100 A3 Mega TCPXO all-reduce replays within the target", "[cli]")
{
  // GCP's tuner plugin decides (h100x8-tcpxo200x8's nccl.tuner_table); the NIC fits 179.5 of 200 Gbps, below its line.
  check_target("h100x8-tcpxo200x8", "01-h100-gcp-a3mega-tcpxo-2n-allreduce");
}

TEST_CASE("NcclLogs: 02 A100 OCI RoCE all-reduce replays within the target", "[cli]")
{
  check_target("a100x8-roce100x16", "02-a100-oci-bmgpu48-roce-2n-allreduce");
}

TEST_CASE("NcclLogs: 03 H100 NDR InfiniBand all-reduce replays within the target but its two first-call rows", "[cli]")
{
  // 8 B and 256 B took 68.5 and 94.4 us out-of-place against 24.7 and 25.9 us in-place and 25 us around them: single
  // first-call measurements (out-of-place > 1.5 x in-place), flagged by calibrate and left out here as there.
  check_target("h100x8-ib400x8", "03-h100-hgx-8xcx7-ndr-2n-allreduce");
}

TEST_CASE("NcclLogs: 12 H100 one-node NVLS all-reduce replays within the target", "[cli]")
{
  check_target("h100x8-ib400x8", "12-h100-1n-nvswitch-allreduce");
}

TEST_CASE("NcclLogs: 13 A100 DGX four-GPU all-reduce replays within the target", "[cli]")
{
  check_target("a100x8-ib200x8", "13-a100-dgx-1n-4gpu-nvswitch-allreduce");
}

TEST_CASE("NcclLogs: 15 and 16 OCI A100 single-size all-reduces replay within the target", "[cli]")
{
  check_target("a100x8-roce100x16", "15-a100-oci-bmgpu48-1n-allreduce-10g");
  check_target("a100x8-roce100x16", "16-a100-oci-bmgpu48-roce-2n-allreduce-10g");
}

TEST_CASE("NcclLogs: 14 A100 sendrecv replays its sizes but the first one", "[cli]")
{
  // The worst-size target cannot hold on 14: its first row, 128 MiB, is a warm-up (128 -> 256 MiB moves at
  // a marginal 633 GB/s, above the 285 GB/s NVLink ceiling, so 128 MiB carries ~500 us that 256 MiB does not; research
  // note §6.2). The rows from 256 MiB on replay within 7 %.
  const std::string stem = "14-a100-1n-8gpu-nvswitch-sendrecv";
  auto e                 = calibrate_and_replay("a100x8-ib200x8", {stem}, "--ranks 8", stem);
  e.erase(134217728);
  INFO("worst from 256 MiB: " << 100 * worst(e) << " %");
  CHECK(worst(e) <= 0.07);
}

TEST_CASE("NcclLogs: 10 H100 A3 High TCPX all-gather replays its median", "[cli]")
{
  // The worst-size target cannot hold on 10: between 16 and 64 MiB the marginal bandwidth (111-124 GB/s) exceeds the
  // highest all-gather rate 4 x 200 Gb/s can reach (107 GB/s), and the large sizes settle at 53.5 GB/s: 8-32 MiB carry
  // an overhead of ~600 us that vanishes by 128 MiB, which no "latency + bytes / bandwidth" candidate can produce
  // The median holds, and the sizes from 128 MiB on, where the NICs bind, replay within 10 %.
  const std::string stem = "10-h100-gcp-a3high-tcpx-2n-allgather";
  auto e                 = calibrate_and_replay("h100x8-tcpx200x4", {stem}, "", stem);
  CHECK(median(e) <= 0.05);
  for (auto it = e.begin(); it != e.end();)
    it = it->first < (std::uint64_t{128} << 20) ? e.erase(it) : std::next(it);
  CHECK(worst(e) <= 0.10);
}

TEST_CASE("NcclLogs: 11 B200 A4 gIB all-gather replays its large sizes", "[cli]")
{
  // Neither target can hold on 11: its time falls by 47 % from 2 to 4 MiB and by 16 % from 16 to 32 MiB, its in-place
  // and out-of-place columns differ by a median 6.8 % (up to 25 %), and its 250-320 us floor is 10x an InfiniBand
  // cluster's (no monotone model does better than 30 % on 2 -> 4 MiB; its marginal bandwidth from
  // 256 MiB to 512 MiB is 1,562 GB/s, from 512 MiB to 1 GiB 740 GB/s, against a 427 GB/s ceiling). Its median is held to
  // 20 %, and the sizes from 4 GiB on, where the NICs bind and the noise has averaged out, to 10 %.
  const std::string stem = "11-b200-gcp-a4-gib-roce-2n-allgather";
  auto e                 = calibrate_and_replay("b200x8-roce400x8", {stem}, "", stem);
  CHECK(median(e) <= 0.20);
  for (auto it = e.begin(); it != e.end();)
    it = it->first < (std::uint64_t{4} << 30) ? e.erase(it) : std::next(it);
  CHECK(worst(e) <= 0.10);
}

TEST_CASE("NcclLogs: a fit on 4 A100s predicts 8 A100s of another NVSwitch node within 10 percent", "[cli]")
{
  // Cross-scale: calibrated on 13 (4 GPUs of a DGX A100, 1-8 GiB), 15 (8 GPUs of an OCI BM.GPU4.8, 10 GiB) replayed.
  const auto e = calibrate_and_replay("a100x8-ib200x8", {"13-a100-dgx-1n-4gpu-nvswitch-allreduce"}, "",
                                      "13-a100-dgx-1n-4gpu-nvswitch-allreduce");
  REQUIRE(!e.empty());
  const auto out = (temp_dir() / "nccl-a100x8-ib200x8-13-a100-dgx-1n-4gpu-nvswitch-allreduce.json").string();
  const auto r   = run_ccsim("collective --topology " + out + " --gpus 8 -b 10G -e 10G --format json --quiet");
  REQUIRE(r.exit_code == 0);
  const double predicted = nlohmann::json::parse(r.out).at("rows").at(0).at("time_us").get<double>();
  CHECK(std::abs(predicted / 80922 - 1) <= 0.10); // 15: 10 GiB in 80,922 us out-of-place
}

TEST_CASE("NcclLogs: a fit on one H100 node predicts two nodes' large all-reduces within 10 percent", "[cli]")
{
  // Cross-scale: calibrated on 12 (one node, NVLS), its NVLS rate predicts 03's NVLS-Tree on 2 nodes from 1 GiB on,
  // where NVLS binds (the NIC stays at h100x8-ib400x8's value, NVIDIA's 46-48 GB/s per NDR NIC).
  const auto e = calibrate_and_replay("h100x8-ib400x8", {"12-h100-1n-nvswitch-allreduce"}, "",
                                      "12-h100-1n-nvswitch-allreduce");
  REQUIRE(!e.empty());
  const auto out = (temp_dir() / "nccl-h100x8-ib400x8-12-h100-1n-nvswitch-allreduce.json").string();
  const std::map<std::uint64_t, double> measured = {{1073741824, 4484.9}, {4294967296, 17262}, {17179869184, 68652}};
  for (const auto& [size, us] : measured) {
    const auto r = run_ccsim("collective --topology " + out + " --gpus 16 -b " + std::to_string(size) + " -e " +
                             std::to_string(size) + " --format json --quiet");
    REQUIRE(r.exit_code == 0);
    const double predicted = nlohmann::json::parse(r.out).at("rows").at(0).at("time_us").get<double>();
    INFO(size << " B: predicted " << predicted << " us, measured " << us);
    CHECK(std::abs(predicted / us - 1) <= 0.10);
  }
}

TEST_CASE("NcclLogs: a fit that needs more than the NICs' line rate is held there and warned about", "[cli]")
{
  // 03 forced to the ring (NCCL_ALGO=Ring): a ring moves 2(n-1)/n S = 1.875 S through each node's NICs, so 03's 469
  // GB/s bus bandwidth at 16 GiB needs 469 GB/s of 8 x 400 Gb/s = 400 GB/s. The fit stops at the line rate and names
  // the likely cause; the written topology keeps bandwidth_gbps 400.
  const auto out = (temp_dir() / "nccl-ring-forced.json").string();
  const auto r   = run_ccsim("calibrate --topology h100x8-ib400x8 --nccl-tests " +
                           log_path("03-h100-hgx-8xcx7-ndr-2n-allreduce") + " --algo ring --out " + out + " --format json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto d = nlohmann::json::parse(r.out);
  bool named   = false;
  for (const auto& w : d.at("warnings"))
    named = named || (w.get<std::string>().find("line rate") != std::string::npos &&
                      w.get<std::string>().find("NCCL_ALGO") != std::string::npos);
  CHECK(named);
  const auto topo = nlohmann::json::parse(read_file(out));
  CHECK(topo.at("nic").at("bandwidth_gbps").get<double>() == 400);
  CHECK(topo.at("nic").at("effective_gbps").get<double>() <= 400);
  // A topology without an nccl block is held at its nominal rate the same way: the case, log 01 fitted with
  // ccsim's hierarchical all-reduce. At 8 GiB (181 GB/s algbw) its intra-node stages take 2 x 7/8 S / 400 GB/s of the
  // H800 ports, leaving the NICs S / 863 GB/s: 863 Gb/s each of 8 x 400 Gb/s.
  auto h800 = nlohmann::json::parse(read_file(std::string(CCSIM_SOURCE_DIR) + "/topologies/h800x8-ib400x8.json"));
  h800.erase("nccl"); // ccsim's own collectives
  const auto own    = ccsim::test::write_temp_file("h800-own-collectives.json", h800.dump());
  const auto legacy = run_ccsim("calibrate --topology " + own + " --nccl-tests " +
                                log_path("01-h100-gcp-a3mega-tcpxo-2n-allreduce") + " --out " +
                                (temp_dir() / "nccl-legacy.json").string() + " --format json");
  INFO(legacy.err);
  REQUIRE(legacy.exit_code == 0);
  const auto l = nlohmann::json::parse(legacy.out);
  CHECK(l.at("effective_gbps").get<double>() <= 400);
  REQUIRE(l.at("warnings").size() == 1);
  CHECK(l.at("warnings").at(0).get<std::string>().find("line rate") != std::string::npos);
}

TEST_CASE("NcclLogs: forced ring with Simple on W1 matches the alpha-beta closed form", "[cli]")
{
  // W1 (one GPU per node, 100 Gb/s = 12.5e9 B/s and 1 us per link: alpha = 2 us) has no nccl block: --algo ring
  // --proto Simple is what it always ran, 2(N-1)(S/N/B + alpha); --proto LL is refused (ccsim's own sends Simple).
  const double S = 104857600, B = 12.5e9, alpha = 2e-6;
  const auto r   = run_ccsim("collective --topology w1-ring100g --gpus 64 -b 100M -e 100M --algo ring --proto Simple "
                             "--format json --quiet");
  REQUIRE(r.exit_code == 0);
  const double t = nlohmann::json::parse(r.out).at("rows").at(0).at("time_us").get<double>() * 1e-6;
  CHECK(t == Approx(2.0 * 63 * (S / 64 / B + alpha)).epsilon(1e-6));
  CHECK(run_ccsim("collective --topology w1-ring100g --gpus 8 --proto LL").exit_code == 2);
  CHECK(run_ccsim("collective --topology w1-ring100g --gpus 8 --algo tree").exit_code == 2);
}

TEST_CASE("NcclLogs: a NIC fitted below half its line rate is warned about", "[cli]")
{
  // Log 02 (OCI A100, 16 x 100 GbE RoCE per node) on its preset fits its NICs near their line rate: no warning. The
  // same log on a copy of the preset whose NICs claim 4 x that rate fits the same delivered bandwidth, a quarter of
  // the claimed line rate or less: below half of it, which no NIC delivers, so calibrate warns (issue 48).
  auto fit_warnings = [](const std::string& topology, const std::string& name) {
    const auto r = run_ccsim("calibrate --topology " + topology + " --nccl-tests " +
                             log_path("02-a100-oci-bmgpu48-roce-2n-allreduce") + " --out " +
                             (temp_dir() / name).string() + " --format json");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const auto doc = nlohmann::json::parse(r.out); // held: a range-for over a temporary's member would dangle
    std::string all;
    for (const auto& w : doc.at("warnings"))
      all += w.get<std::string>() + "\n";
    return all;
  };
  CHECK(fit_warnings("a100x8-roce100x16", "nic-right.json").find("below half") == std::string::npos);
  auto topo = nlohmann::json::parse(read_file(std::string(CCSIM_SOURCE_DIR) + "/topologies/a100x8-roce100x16.json"));
  topo["nic"]["bandwidth_gbps"] = 4 * topo["nic"]["bandwidth_gbps"].get<double>();
  const auto fast = ccsim::test::write_temp_file("roce-claimed-400.json", topo.dump());
  const auto warned = fit_warnings(fast, "nic-claimed.json");
  INFO(warned);
  CHECK(warned.find("below half of it") != std::string::npos);
}

TEST_CASE("NcclLogs: after calibrate a user's cluster counts as calibrated and its likely range narrows", "[cli]")
{
  // A cluster of the user's own (log 02's OCI A100 nodes under another name, so no preset's rows are its own): before
  // calibrate its range is the presets' errors doubled ("has no calibration"); calibrate writes the replay's residuals
  // into the topology, and the same run's range then comes from them (issue 48).
  auto topo    = nlohmann::json::parse(read_file(std::string(CCSIM_SOURCE_DIR) + "/topologies/a100x8-roce100x16.json"));
  topo["name"] = "my-roce";
  const auto mine   = ccsim::test::write_temp_file("my-roce.json", topo.dump());
  const auto fitted = (temp_dir() / "my-roce-calibrated.json").string();
  auto step_range   = [](const std::string& topology) {
    const auto r = run_ccsim("simulate --topology " + topology + " --workload gpt-1.3b --algorithm adam --gpus 16 "
                             "--format json");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const auto d = nlohmann::json::parse(r.out);
    return std::make_pair(d.at("step_time_s").get<double>(), d.at("intervals").at("step_time_s"));
  };
  const auto [p0, before] = step_range(mine);
  CHECK(before.at("why").get<std::string>().find("my-roce has no calibration") != std::string::npos);
  const auto c = run_ccsim("calibrate --topology " + mine + " --nccl-tests " +
                           log_path("02-a100-oci-bmgpu48-roce-2n-allreduce") + " --out " + fitted + " --format json");
  INFO(c.err);
  REQUIRE(c.exit_code == 0);
  const auto written = nlohmann::json::parse(read_file(fitted));
  REQUIRE(written.contains("calibration"));
  CHECK(written.at("calibration").at("gpus").get<int>() == 16);
  const auto [p1, after] = step_range(fitted);
  const std::string why  = after.at("why").get<std::string>();
  INFO(why);
  CHECK(why.find("has no calibration") == std::string::npos);
  CHECK(why.find("on my-roce") != std::string::npos);
  // Narrower: the ratio high / low of the step's range, (1 - h)^-2, falls.
  CHECK(after.at("high").get<double>() / after.at("low").get<double>() <
        before.at("high").get<double>() / before.at("low").get<double>());
  // And no narrower than the residuals allow: h is at least their split-conformal 80 % quantile (the
  // ceil(0.8 (n + 1))-th smallest |residual|, the largest when that passes n) and the 2 % floor; high = p / (1 - h).
  std::vector<double> residuals;
  for (const auto& e : written.at("calibration").at("residuals_pct"))
    residuals.push_back(std::abs(e.get<double>()) / 100);
  std::sort(residuals.begin(), residuals.end());
  const auto rank = static_cast<std::size_t>(std::ceil(0.8 * static_cast<double>(residuals.size() + 1)));
  const double q  = residuals[std::min(rank, residuals.size()) - 1];
  const double h  = 1 - p1 / after.at("high").get<double>();
  CHECK(h >= std::max(q, 0.02) * (1 - 1e-9));
}

TEST_CASE("NcclLogs: a log that states NCCL_ALGO and NCCL_PROTO is fitted with them, as --algo and --proto would",
          "[cli]")
{
  // Log 02 (OCI A100 RoCE, 2 nodes) with the lines NCCL_DEBUG=INFO prints for NCCL_ALGO=Ring NCCL_PROTO=Simple: the
  // fit replays every size as ring/Simple and gives the constants `--algo ring --proto Simple` gives on the bare log.
  // Without either, NCCL's choice runs some sizes otherwise (the test would not tell the two apart if not).
  const std::string bare = read_file(log_path("02-a100-oci-bmgpu48-roce-2n-allreduce"));
  const std::string algo = "nccl-0:1:1 [0] NCCL INFO NCCL_ALGO set by environment to Ring\n";
  const std::string proto = "nccl-0:1:1 [0] NCCL INFO NCCL_PROTO set by environment to Simple\n";
  const auto stated = ccsim::test::write_temp_file("02-stated.txt", algo + proto + bare);
  auto fit = [](const std::string& files, const std::string& flags, const std::string& name) {
    const auto r = run_ccsim("calibrate --topology a100x8-roce100x16 " + files + " " + flags + " --out " +
                             (temp_dir() / name).string() + " --format json");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return nlohmann::json::parse(r.out);
  };
  const auto from_log  = fit("--nccl-tests " + stated, "", "stated.json");
  const auto from_flag = fit("--nccl-tests " + log_path("02-a100-oci-bmgpu48-roce-2n-allreduce"),
                             "--algo ring --proto Simple", "flagged.json");
  const auto chosen    = fit("--nccl-tests " + log_path("02-a100-oci-bmgpu48-roce-2n-allreduce"), "", "chosen.json");
  CHECK(from_log.at("forced_algo") == nlohmann::json({{"value", "Ring"}, {"from", "the log"}}));
  CHECK(from_log.at("forced_proto") == nlohmann::json({{"value", "Simple"}, {"from", "the log"}}));
  CHECK(from_flag.at("forced_algo").at("from") == "--algo");
  CHECK(chosen.at("forced_algo").is_null());
  for (const auto& row : from_log.at("rows")) {
    CHECK(row.at("algorithm") == "ring");
    CHECK(row.at("protocol") == "Simple");
  }
  bool other = false;
  for (const auto& row : chosen.at("rows"))
    other = other || row.at("algorithm") != "ring" || row.at("protocol") != "Simple";
  CHECK(other);
  REQUIRE(from_log.at("constants").size() == from_flag.at("constants").size());
  for (std::size_t k = 0; k < from_log.at("constants").size(); ++k)
    CHECK(from_log.at("constants").at(k).at("after") == from_flag.at("constants").at(k).at("after"));
  CHECK(from_log.at("median_abs_error") == from_flag.at("median_abs_error"));

  // A flag that contradicts the log, a set NCCL chose from, and two logs of two settings: one line each, exit 2.
  auto refused = [](const std::string& args, const std::string& says) {
    const auto r = run_ccsim("calibrate --topology a100x8-roce100x16 " + args + " --out " +
                             (temp_dir() / "refused.json").string());
    INFO(args << "\n" << r.err);
    CHECK(r.exit_code == 2);
    CHECK(ccsim::test::line_count(r.err) == 1);
    CHECK(r.err.find(says) != std::string::npos);
  };
  refused("--nccl-tests " + stated + " --algo tree", "--algo: 'tree' contradicts");
  const auto excluded = ccsim::test::write_temp_file(
      "02-excluded.txt", "nccl-0:1:1 [0] NCCL INFO NCCL_ALGO set by environment to ^Tree\n" + bare);
  refused("--nccl-tests " + excluded, "a set NCCL chose from per size");
  const auto tree = ccsim::test::write_temp_file(
      "02-tree.txt", "nccl-0:1:1 [0] NCCL INFO NCCL_ALGO set by environment to Tree\n" + bare);
  refused("--nccl-tests " + stated + " --nccl-tests " + tree, "ran with NCCL_ALGO='Tree' where");
  // An algorithm ccsim cannot force is named at the log that states it, not at the first log given.
  const auto collnet = ccsim::test::write_temp_file(
      "02-collnet.txt", "nccl-0:1:1 [0] NCCL INFO NCCL_ALGO set by environment to CollnetDirect\n" + bare);
  refused("--nccl-tests " + log_path("02-a100-oci-bmgpu48-roce-2n-allreduce") + " --nccl-tests " + collnet,
          collnet + ": 'CollnetDirect' is not one of");
}

TEST_CASE("NcclLogs: calibrate takes the NCCL release a log's banner states, and a release runs what it has",
          "[cli]")
{
  // 03 states "NCCL version 2.26.2+cuda12.8": the calibrated topology says so, and where it came from.
  const auto out = (temp_dir() / "nccl-release-03.json").string();
  const auto c   = run_ccsim("calibrate --topology h100x8-ib400x8 --nccl-tests " +
                             log_path("03-h100-hgx-8xcx7-ndr-2n-allreduce") + " --out " + out + " --format json");
  INFO(c.err);
  REQUIRE(c.exit_code == 0);
  const auto topo = nlohmann::json::parse(read_file(out));
  CHECK(topo.at("nccl").at("version") == "2.26.2");
  CHECK(topo.at("nccl").at("source_version").get<std::string>().find("03-h100") != std::string::npos);

  // The same table under a release before NVLS (2.17.1) and NVLS-Tree (2.18.1): said, and never chosen.
  std::string text = read_file(log_path("03-h100-hgx-8xcx7-ndr-2n-allreduce"));
  const auto at    = text.find("NCCL version 2.26.2");
  REQUIRE(at != std::string::npos);
  text.replace(at, 19, "NCCL version 2.16.5");
  const auto old_log = ccsim::test::write_temp_file("nccl-release-2.16.5.txt", text);
  const auto r       = run_ccsim("calibrate --topology h100x8-ib400x8 --nccl-tests " + old_log + " --no-fit --format json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto d = nlohmann::json::parse(r.out);
  std::string notes;
  for (const auto& n : d.at("notes"))
    notes += n.get<std::string>();
  CHECK(notes.find("NCCL 2.16.5") != std::string::npos);
  CHECK(notes.find("predates NVLS from 2.17.1, NVLS-Tree from 2.18.1") != std::string::npos);
  int nvls_rows = 0;
  for (const auto& row : d.at("rows"))
    nvls_rows += row.at("algorithm").get<std::string>().rfind("nvls", 0) == 0;
  CHECK(nvls_rows == 0);
  // The real 2.26.2 log replayed on the newest release runs NVLS-Tree from 8 MiB on (README's table of log 03).
  const auto now = run_ccsim("calibrate --topology h100x8-ib400x8 --nccl-tests " +
                             log_path("03-h100-hgx-8xcx7-ndr-2n-allreduce") + " --no-fit --format json");
  REQUIRE(now.exit_code == 0);
  int nvls_now       = 0;
  const auto now_doc = nlohmann::json::parse(now.out); // alive through the loop
  for (const auto& row : now_doc.at("rows"))
    nvls_now += row.at("algorithm").get<std::string>() == "nvls_tree";
  CHECK(nvls_now > 0);
}

TEST_CASE("NcclLogs: a topology's nccl.version is checked, and an algorithm its release predates is refused",
          "[cli]")
{
  auto preset = nlohmann::json::parse(read_file(std::string(CCSIM_SOURCE_DIR) + "/topologies/h100x8-ib400x8.json"));
  const struct {
    nlohmann::json version, algorithms;
    std::string says;
  } cases[] = {
      {"3.0.0", nullptr, "is not an NCCL 2 release"},
      {"2.18.x", nullptr, "is not an NCCL 2 release"},
      {"2.16.5", nlohmann::json::array({"nvls"}), "NCCL 2.16.5 predates NVLS from 2.17.1"},
  };
  for (const auto& k : cases) {
    auto doc               = preset;
    doc["nccl"]["version"] = k.version;
    if (!k.algorithms.is_null())
      doc["nccl"]["algorithms"] = k.algorithms;
    const auto file = ccsim::test::write_temp_file("nccl-version-bad.json", doc.dump());
    const auto r    = run_ccsim("collective --topology " + file + " --gpus 8 -b 1M -e 1M --quiet");
    INFO(k.version << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(ccsim::test::line_count(r.err) == 1);
    CHECK(r.err.find("/nccl/version") != std::string::npos);
    CHECK(r.err.find(k.says) != std::string::npos);
  }
  auto doc               = preset;
  doc["nccl"]["version"] = "2.17.1";
  const auto file        = ccsim::test::write_temp_file("nccl-version-2.17.1.json", doc.dump());
  const auto r = run_ccsim("collective --topology " + file + " --gpus 16 -b 1G -e 1G --algo nvls_tree --quiet");
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("runs NCCL 2.17.1, which predates NVLS-Tree from 2.18.1") != std::string::npos);
}
