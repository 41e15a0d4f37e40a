// Issue 42: `ccsim train` gives the same bytes on any x86-64 CPU. The same short runs (tests/support/TrainingBytes.hpp)
// are trained here, by drivers whose training numerics were compiled for other vector widths (scalar, AVX2 with FMA,
// AVX-512; tests/CMakeLists.txt), under each run-time kernel path (CCSIM_SIMD), and on other thread counts; every
// one must print exactly this build's losses. A path the CPU cannot run is skipped with a warning.
#include "tests/support/RunCcsim.hpp"
#include "tests/support/TrainingBytes.hpp"

#include "numerics/SimdLevel.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

using ccsim::numerics::SimdLevel;

// Without CCSIM_SIMD_BUILDS (the sanitizer build) only the baseline driver exists.
#ifndef CCSIM_TRAINING_BYTES_SCALAR
#define CCSIM_TRAINING_BYTES_SCALAR ""
#define CCSIM_TRAINING_BYTES_AVX2_FMA ""
#define CCSIM_TRAINING_BYTES_AVX512 ""
#endif

namespace {
/// Runs `program` with `setting` (NAME=VALUE, or empty) added to the environment; its stdout, or the exit status.
ccsim::test::RunResult run_driver(const std::string& program, const std::string& setting)
{
  static int counter = 0;
  const auto out     = ccsim::test::temp_dir() / ("bytes" + std::to_string(counter++) + ".txt");
  const pid_t pid    = fork();
  if (pid == 0) {
    const int fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, STDOUT_FILENO);
    if (!setting.empty())
      putenv(const_cast<char*>(setting.c_str()));
    execl(program.c_str(), program.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ccsim::test::RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  r.out       = ccsim::test::read_file(out);
  return r;
}

const std::string& this_build()
{
  static const std::string bytes = ccsim::test::training_bytes();
  return bytes;
}

/// What each build needs from the CPU (__builtin_cpu_supports takes literal names only).
bool cpu_has_avx2_fma() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }
bool cpu_has_avx512()
{
  return cpu_has_avx2_fma() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
}
} // namespace

TEST_CASE("TrainingBytes: the runs cover every phase and print a loss at every other step", "[algorithms]")
{
  // 23 runs; a 20-step run evaluates at 0, 2, ..., 20: 11 losses, each as %a (never a NaN here).
  const auto lines = ccsim::test::lines_of_text(this_build());
  REQUIRE(lines.size() == ccsim::test::training_bytes_runs().size());
  CHECK(lines.size() == 23);
  CHECK(lines.front().rfind("mlp adam ", 0) == 0);
  CHECK(std::count(lines.front().begin(), lines.front().end(), ':') == 11);
  CHECK(this_build().find("nan") == std::string::npos);
}

TEST_CASE("TrainingBytes: the scalar, AVX2-FMA and AVX-512 builds give this build's bytes", "[algorithms]")
{
  struct Build {
    const char* name;
    const char* program;
    bool runs_here;
  };
  const Build builds[] = {{"baseline (x86-64, SSE2)", CCSIM_TRAINING_BYTES_BASELINE, true},
                          {"scalar", CCSIM_TRAINING_BYTES_SCALAR, true},
                          {"AVX2 with FMA", CCSIM_TRAINING_BYTES_AVX2_FMA, cpu_has_avx2_fma()},
                          {"AVX-512", CCSIM_TRAINING_BYTES_AVX512, cpu_has_avx512()}};
  for (const auto& b : builds) {
    if (std::string(b.program).empty()) {
      WARN("the " << b.name << " build was not built (CCSIM_SIMD_BUILDS=OFF): skipped");
      continue;
    }
    if (!b.runs_here) {
      WARN("this CPU cannot run the " << b.name << " build: skipped");
      continue;
    }
    INFO(b.name << " build (" << b.program << ")");
    const auto r = run_driver(b.program, "");
    REQUIRE(r.exit_code == 0);
    CHECK(r.out == this_build());
  }
}

TEST_CASE("TrainingBytes: every run-time kernel path gives the same bytes", "[algorithms]")
{
  // CCSIM_SIMD caps the hand-written and cloned kernels (numerics/SimdLevel.hpp); the AVX-512 build runs them too.
  for (const SimdLevel level : {SimdLevel::SCALAR, SimdLevel::AVX2, SimdLevel::AVX512}) {
    if (level > ccsim::numerics::best_simd_level()) {
      WARN("this CPU has no " << ccsim::numerics::to_string(level) << " kernels: skipped");
      continue;
    }
    INFO("CCSIM_SIMD=" << ccsim::numerics::to_string(level));
    const auto r = run_driver(CCSIM_TRAINING_BYTES_BASELINE, std::string("CCSIM_SIMD=") + ccsim::numerics::to_string(level));
    REQUIRE(r.exit_code == 0);
    CHECK(r.out == this_build());
  }
}

TEST_CASE("TrainingBytes: 1, 2, 3 and 5 threads give the same bytes", "[algorithms]")
{
  for (const char* threads : {"1", "2", "3", "5"}) {
    INFO("CCSIM_THREADS=" << threads);
    const auto r = run_driver(CCSIM_TRAINING_BYTES_BASELINE, std::string("CCSIM_THREADS=") + threads);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out == this_build());
  }
}
