#!/usr/bin/env bash
# Builds the unit tests and ccsim with AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/, CUDA off) and runs
# a selection of the suite under them (what is left out, and why, is listed before the ctest line below); any report
# in project code fails the run (halt_on_error, no recovery). CI runs this after scripts/test.sh, which runs all of it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null # the packages (and the Release build the README's command uses)
jobs=$(nproc 2>/dev/null || echo 2)
flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
# GCC 12 at -O1 reports libstdc++'s own std::regex states (the std::function inside std::__detail::_State, copied by
# <regex>'s compiler) as maybe used uninitialized in tests/cli/OptionParity_test.cpp: a header false positive (10
# warnings, all inside std_function.h), silenced for this build only; the Release build at -O3 does not report it.
if [ "$(c++ -dumpversion 2>/dev/null | cut -d. -f1)" = "12" ]; then
  flags="$flags -Wno-maybe-uninitialized"
fi
# -O1 -g1 (line tables only), not RelWithDebInfo's -O2 -g: with the sanitizers' instrumentation, -O2 and full debug
# information made this build 2-3x the Release build (ResolvedRun.cpp: 41 s against 19 s at -O1 -g1 on one core),
# the longest stage of CI; -O1 is what AddressSanitizer's documentation recommends, and the reports keep their
# file:line frames.
if [ ! -f build-asan/CMakeCache.txt ]; then
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
    -DCCSIM_CUDA=OFF -DCCSIM_SIMD_BUILDS=OFF \
    -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
fi
cmake --build build-asan -j"$jobs" 2>&1 | grep -E "error|warning:" || true
test -x build-asan/ccsim || { echo "test-sanitizers: build failed (run: cmake --build build-asan)" >&2; exit 1; }
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=1:detect_stack_use_after_return=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export LSAN_OPTIONS="suppressions=$(pwd)/scripts/sanitizer-suppressions.txt"
# What runs where. The Release suite (scripts/test.sh, before this in CI) runs every test; this one runs what the
# sanitizers add something to, within CI's time. All of it under the sanitizers is 5,000 s of test time, 42 minutes
# on CI's two cores against 7 for the Release suite; the last CI run before this selection stopped at its limit.
#  - Not here: the trainings ("Convergence: ", "Convergence claims: ", "evidence: ", "TrainingBytes: "; minutes each
#    under ASan, over kernels the numerics tests cover; TrainingBytes compares builds for vector widths that this one
#    does not make), bench-kernels' thread-limit test and "memory exhaustion is said as such" (a ulimit in which ASan
#    cannot map its own shadow memory), "docs: " (compares printed predictions with docs/validation.md, which the
#    plain build's binary checks), "lint: " and "scripts: " (shell and Python over the sources and the scripts: nothing
#    of ccsim's runs in them).
#  - Not here either, the tests that took 20 s or more each under the sanitizers (long_here: 20-240 s each in that CI
#    run, 3-40 s in Release). They repeat long simulations and trainings whose code the short tests kept here also run
#    under the sanitizers: whole-cluster all-to-alls message by message, the 70B step in both fidelities, kill and
#    resume loops, fine-tuning caches, the advise search's exhaustive comparison, NCCL log replays of many sizes, the
#    paper-table and interval sweeps over every preset.
#  - The mutation tests (tests/cli/InputMutation_test.cpp) run every 13th mutation here (CCSIM_TEST_MUTATION_STRIDE,
#    tests/support/Mutations.hpp), every one in Release: bad input is where a sanitizer finds most, and the prime
#    stride still walks across every preset, pointer and kind of mutation. All of them took 37 minutes here.
release_only="Convergence: |Convergence claims: |evidence: |TrainingBytes: |threads the system will not start"
release_only="$release_only|memory exhaustion is said as such|docs: |lint: |scripts: "
long_here="CCSIM_SYMMETRY=off|a rerun stopped by SIGTERM at any moment|train --task finetune: |two runs into one --out"
long_here="$long_here|advise --search: pruning by bound|AdviseZero: advise --search tries each stage"
long_here="$long_here|NcclLogs: 02 |NcclLogs: 03 |NcclLogs: a NIC fitted below half|IntervalPhysics: every preset"
long_here="$long_here|SymmetricRound: an all-to-all|SymmetricRound: reduced all-to-alls|NcclModel: the simulated flows"
long_here="$long_here|Finding 4 of issue 43|Training: the tiny transformer's loss curve|TinyTransformer: every char-gpt"
long_here="$long_here|a 70B tp 8 x pp 4 step is the same|Calibration: every paper value of every table"
long_here="$long_here|experiment interrupted after k points|ccsim train: names each run's learning rate"
long_here="$long_here|a comparison on char-gpt runs the schedule|calibrate --steps: recovers"
export CCSIM_TEST_MUTATION_STRIDE=13
ctest --test-dir build-asan --output-on-failure -j"$jobs" --timeout 900 -E "$release_only|$long_here|mpirun"
# Open MPI's plug-ins are dlopen'ed and dlclose'd, so LeakSanitizer sees their allocations kept until exit from an
# "<unknown module>" that no suppression can name: the mpirun tests run with leak detection off (ASan and UBSan stay on).
ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" ctest --test-dir build-asan --output-on-failure -j"$jobs" --timeout 900 \
  -R "mpirun" -E "$long_here"
