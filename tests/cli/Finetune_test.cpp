// `ccsim train --task finetune`: its learning-rate default and the pre-training cache that keeps tests and repeated runs
// from training the starting point again. AQ-SGD's claim in this regime is tests/cli/ConvergenceClaims_test.cpp.
#include "tests/support/RunCcsim.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <sys/stat.h>

using ccsim::test::line_count;
using ccsim::test::run_ccsim;

namespace {
nlohmann::json train_json(const std::string& args)
{
  const auto r = run_ccsim("train --model tiny-transformer --format json --quiet " + args);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out);
}
} // namespace

TEST_CASE("ccsim train --task finetune: lr defaults to a tenth of the pre-training rate - --param lr overrides it",
          "[cli]")
{
  const auto cache = (ccsim::test::temp_dir() / "pretrain-cache-lr").string();
  const std::string args = "--task finetune --algorithm adam --steps 2 --pretrain-steps 3 --cache-dir " + cache;
  const auto by_default  = train_json(args);
  CHECK(by_default["task"]["lr"].get<double>() == Approx(3e-4).epsilon(1e-12));
  CHECK(by_default["task"]["lr_source"].get<std::string>().find("a tenth of the pre-training rate 0.003") !=
        std::string::npos);
  const auto same = train_json(args + " --param lr=0.0003");
  CHECK(same["final_loss"] == by_default["final_loss"]); // the default is exactly --param lr=0.0003
  CHECK(same["task"]["lr_source"] == "--param lr");
  const auto given = train_json(args + " --param lr=0.003");
  CHECK(given["task"]["lr"].get<double>() == Approx(3e-3).epsilon(1e-12));
  CHECK(given["final_loss"] != by_default["final_loss"]);
}

TEST_CASE("ccsim train --task finetune: the pre-trained model is cached by its settings and a damaged file is trained again",
          "[cli]")
{
  const auto cache = (ccsim::test::temp_dir() / "pretrain-cache").string();
  const std::string args = "--task finetune --algorithm adam --steps 2 --pretrain-steps 3 --cache-dir " + cache;
  const auto first       = train_json(args);
  const auto& task       = first["task"]["pretrain"];
  CHECK(task["from_cache"] == false);
  const auto file = task["cache_file"].get<std::string>();
  REQUIRE(std::filesystem::exists(file));
  // Read back: the same start, so the same loss to the bit.
  const auto second = train_json(args);
  CHECK(second["task"]["pretrain"]["from_cache"] == true);
  CHECK(second["final_loss"] == first["final_loss"]);
  // Another setting is another key (and file).
  const auto other = train_json("--task finetune --algorithm adam --steps 2 --pretrain-steps 4 --cache-dir " + cache);
  CHECK(other["task"]["pretrain"]["cache_key"] != task["cache_key"]);
  CHECK(other["task"]["pretrain"]["from_cache"] == false);
  // A truncated file is not used: pre-trained again, same result, and stderr says why.
  std::filesystem::resize_file(file, std::filesystem::file_size(file) - 5);
  const auto r = run_ccsim("train --model tiny-transformer --format json --quiet " + args);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("was truncated: pre-trained again") != std::string::npos);
  const auto third = nlohmann::json::parse(r.out);
  CHECK(third["task"]["pretrain"]["from_cache"] == false);
  CHECK(third["final_loss"] == first["final_loss"]);
  // And a file of the right size with one flipped byte fails its checksum.
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100);
    f.put('\x7f');
  }
  const auto flipped = run_ccsim("train --model tiny-transformer --format json --quiet " + args);
  CHECK(flipped.err.find("checksum mismatch") != std::string::npos);
}

TEST_CASE("ccsim train --task finetune: a cache file of non-finite weights or a FIFO in its place is trained again",
          "[cli][mutation]")
{
  const auto cache = (ccsim::test::temp_dir() / "pretrain-cache-bad").string();
  const std::string args = "--task finetune --algorithm adam --steps 2 --pretrain-steps 3 --cache-dir " + cache;
  const auto first       = train_json(args);
  const auto file        = first["task"]["pretrain"]["cache_file"].get<std::string>();
  // The cache's layout (api/training/PretrainCache.cpp): 8-byte magic, key, count n, n floats, FNV-1a 64 of the
  // floats. Every weight NaN, with a checksum that matches them: the bytes are whole, the weights are not.
  std::string bytes;
  {
    std::ifstream in(file, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  REQUIRE(bytes.size() > 32);
  const std::size_t n = (bytes.size() - 32) / 4;
  const float nan     = std::numeric_limits<float>::quiet_NaN();
  for (std::size_t i = 0; i < n; ++i)
    std::memcpy(&bytes[24 + 4 * i], &nan, 4);
  std::uint64_t h = 14695981039346656037ull; // FNV-1a 64
  for (std::size_t i = 24; i < 24 + 4 * n; ++i) {
    h ^= static_cast<unsigned char>(bytes[i]);
    h *= 1099511628211ull;
  }
  std::memcpy(&bytes[24 + 4 * n], &h, 8);
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
  const auto nan_run = run_ccsim("train --model tiny-transformer --format json --quiet " + args);
  INFO(nan_run.err);
  REQUIRE(nan_run.exit_code == 0);
  CHECK(nan_run.err.find("was holding non-finite weights: pre-trained again") != std::string::npos);
  const auto retrained = nlohmann::json::parse(nan_run.out);
  CHECK(retrained["diverged_at_step"].is_null());
  CHECK(retrained["final_loss"] == first["final_loss"]);

  // A FIFO where the file belongs would block a reader forever: it is replaced, and stderr says so.
  std::filesystem::remove(file);
  REQUIRE(mkfifo(file.c_str(), 0644) == 0);
  const auto fifo_run = run_ccsim("train --model tiny-transformer --format json --quiet " + args);
  INFO(fifo_run.err);
  REQUIRE(fifo_run.exit_code == 0);
  CHECK(fifo_run.err.find("was not a regular file: pre-trained again") != std::string::npos);
  CHECK(std::filesystem::is_regular_file(file));
  CHECK(nlohmann::json::parse(fifo_run.out)["final_loss"] == first["final_loss"]);
}

TEST_CASE("ccsim train --task: finetune needs the transformer and pp <= 4 - its flags need finetune", "[cli]")
{
  for (const std::string& bad :
       {std::string("--algorithm adam --task finetune"),
        std::string("--model tiny-transformer --algorithm aq-sgd --param pp=8 --task finetune"),
        std::string("--model tiny-transformer --algorithm adam --cache-dir /tmp/x"),
        std::string("--model tiny-transformer --algorithm adam --pretrain-steps 5"),
        std::string("--model tiny-transformer --algorithm adam --task pretrain")}) {
    const auto r = run_ccsim("train --steps 1 " + bad);
    INFO(bad << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(line_count(r.err) == 1);
  }
}
