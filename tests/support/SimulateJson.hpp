#pragma once
// Test helper: the JSON document of a `ccsim simulate --format json --quiet <args>` run that must succeed.

#include "tests/support/RunCcsim.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

namespace ccsim::test {

inline nlohmann::json simulate_json(const std::string& args)
{
  const auto r = run_ccsim("simulate --format json --quiet " + args);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out);
}

} // namespace ccsim::test
