// The one process pool: results by task index whatever order the children finish in, input errors and crashes told
// apart, and a first failure that stops the launching unless keep_going.
#include "api/process/Isolation.hpp"
#include "api/process/ProcessPool.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <thread>
#include <unistd.h>

using namespace ccsim::api;

TEST_CASE("ProcessPool: every task's answer lands at its index, slow ones first or not", "[api]")
{
  PoolOptions options;
  options.jobs = 3;
  std::vector<std::size_t> finished_order;
  options.on_finished = [&](std::size_t i, const TaskResult& r) {
    CHECK(r.ok());
    finished_order.push_back(i);
  };
  // Task i sleeps (5 - i) x 20 ms: the later ones finish first.
  const auto out = run_pool(6, [](std::size_t i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20 * (5 - static_cast<int>(i))));
    return nlohmann::json{{"square", i * i}};
  }, options);
  REQUIRE(out.results.size() == 6);
  CHECK_FALSE(out.stopped);
  for (std::size_t i = 0; i < 6; ++i) {
    REQUIRE(out.results[i].ok());
    CHECK(out.results[i].value["square"] == i * i);
  }
  CHECK(finished_order.size() == 6);
}

TEST_CASE("ProcessPool: an input error keeps its message, a crash is one line, and only the listed tasks run", "[api]")
{
  PoolOptions options;
  options.jobs = 2;
  const auto out = run_pool(4, {0, 1, 3}, [](std::size_t i) -> nlohmann::json {
    if (i == 1)
      throw ccsim::io::InputError("--gpus", "", "too many");
    if (i == 3)
      std::abort();
    return i;
  }, options);
  CHECK(out.results[0].ok());
  CHECK(out.results[1].status == TaskResult::Status::INPUT_ERROR);
  REQUIRE(out.results[1].input_error.has_value());
  CHECK(out.results[1].input_error->problem() == "too many");
  CHECK(out.results[1].error == "--gpus: too many");
  CHECK(out.results[2].status == TaskResult::Status::NOT_RUN);
  CHECK(out.results[3].status == TaskResult::Status::CRASH);
  CHECK_THAT(out.results[3].error, Catch::Contains("simulation crashed (signal 6)"));
}

TEST_CASE("ProcessPool: without keep_going the first failure stops the launching", "[api]")
{
  PoolOptions options;
  options.jobs       = 1; // one at a time: task 2 fails before 3 and 4 are launched
  options.keep_going = false;
  const auto out = run_pool(5, [](std::size_t i) -> nlohmann::json {
    if (i == 2)
      throw ccsim::io::InputError("x", "", "no");
    return i;
  }, options);
  CHECK(out.results[0].ok());
  CHECK(out.results[1].ok());
  CHECK(out.results[2].failed());
  CHECK(out.results[3].status == TaskResult::Status::NOT_RUN);
  CHECK(out.results[4].status == TaskResult::Status::NOT_RUN);
}

TEST_CASE("ProcessPool: a pool's child, whose progress nobody reads, starts no reporter thread", "[api]")
{
  // Threads of the calling process, from /proc/self/task (one entry per thread).
  const auto threads = [] {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/task"))
      ++n;
    return n;
  };
  const auto report_then_count = [&] {
    report_child_progress(1, 2);
    return nlohmann::json(threads());
  };
  PoolOptions options;
  const auto pooled = run_pool(1, [&](std::size_t) { return report_then_count(); }, options);
  REQUIRE(pooled.results[0].ok());
  CHECK(pooled.results[0].value == 1); // the child's one thread
  // A child whose progress is relayed (a single simulation's progress line) does start it.
  CHECK(await_isolated(start_isolated_work(report_then_count)) == 2);
}

TEST_CASE("Isolation: a child's work that must start over runs once more in a fresh child, and only once", "[api]")
{
  // The first attempt asks for a fresh process; the second, told it may not, answers which attempt it was.
  const std::function<nlohmann::json()> again_once = [] {
    if (may_run_again_fresh())
      throw RunAgainFresh("needs a fresh process");
    return nlohmann::json{{"attempt", 2}, {"pid", static_cast<int>(getpid())}};
  };
  const auto run = start_isolated_work(again_once);
  const auto doc = finish_isolated(run);
  CHECK(doc["attempt"] == 2);
  CHECK(doc["pid"] != run.pid); // another child answered
  CHECK(await_isolated(start_isolated_work(again_once))["attempt"] == 2);
  // A second attempt that throws it again is an error, not a third attempt.
  const std::function<nlohmann::json()> always = []() -> nlohmann::json { throw RunAgainFresh("still not enough"); };
  CHECK_THROWS_WITH(finish_isolated(start_isolated_work(always)), "still not enough");
  // In the pool too: the task's answer comes from its second child.
  const auto out = run_pool(2, [&](std::size_t i) { return nlohmann::json{{"i", i}, {"a", again_once()}}; }, PoolOptions{});
  REQUIRE(out.results.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    REQUIRE(out.results[i].ok());
    CHECK(out.results[i].value["a"]["attempt"] == 2);
  }
  CHECK_FALSE(may_run_again_fresh()); // ccsim itself is no child
}
