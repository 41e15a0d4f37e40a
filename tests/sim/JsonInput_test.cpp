// The JSON boundary: every bad input becomes one InputError line "FILE: /json/path: problem".
#include "sim/io/JsonInput.hpp"
#include "tests/support/InputErrors.hpp"
#include "tests/support/RunCcsim.hpp"

#include <catch2/catch.hpp>

#include <functional>

using ccsim::io::InputError;
using ccsim::io::JsonObject;
using ccsim::test::message_of;
using ccsim::test::write_temp_file;


TEST_CASE("read_json_file: an unreadable file names the file", "[sim][io]")
{
  const std::string msg = message_of([] { ccsim::io::read_json_file("/nonexistent/x.json"); });
  CHECK(msg == "/nonexistent/x.json: cannot open file for reading (no such file or no permission)");
}

TEST_CASE("read_json_file: truncated JSON is reported with its position on one line", "[sim][io]")
{
  const auto file = write_temp_file("truncated.json", "{\"a\": [1, 2,\n");
  const std::string msg = message_of([&] { ccsim::io::read_json_file(file); });
  CHECK_THAT(msg, Catch::StartsWith(file + ": invalid JSON: parse error"));
  CHECK(msg.find('\n') == std::string::npos);
}

TEST_CASE("JsonObject: a wrong type is reported at its JSON path", "[sim][io]")
{
  const nlohmann::json j = nlohmann::json::parse(R"({"nic": {"bandwidth_gbps": "fast"}})");
  const JsonObject root(j, "topo.json");
  CHECK(message_of([&] { root.object("nic").positive("bandwidth_gbps"); }) ==
        "topo.json: /nic/bandwidth_gbps: must be a number, not string");
}

TEST_CASE("JsonObject: a missing required field is named", "[sim][io]")
{
  const nlohmann::json j = nlohmann::json::parse(R"({"gpu": {}})");
  const JsonObject root(j, "topo.json");
  CHECK(message_of([&] { root.object("gpu").string("name"); }) == "topo.json: /gpu/name: missing required field");
}

TEST_CASE("JsonObject: a negative bandwidth is rejected", "[sim][io]")
{
  const nlohmann::json j = nlohmann::json::parse(R"({"nic": {"bandwidth_gbps": -40}})");
  const JsonObject root(j, "topo.json");
  CHECK(message_of([&] { root.object("nic").positive("bandwidth_gbps"); }) ==
        "topo.json: /nic/bandwidth_gbps: must be > 0 (got -40)");
}

TEST_CASE("JsonObject: an unknown key (a typo) is rejected / notes are allowed", "[sim][io]")
{
  const nlohmann::json j = nlohmann::json::parse(R"({"gpus": 4, "source": "Table 5", "gpsu_per_node": 4})");
  const JsonObject root(j, "t.json");
  CHECK_THAT(message_of([&] { root.allow_only({"gpus", "gpus_per_node"}); }),
             Catch::StartsWith("t.json: /gpsu_per_node: unknown field (allowed: gpus, gpus_per_node)"));
}

TEST_CASE("JsonObject: integers must be whole numbers", "[sim][io]")
{
  const nlohmann::json j = nlohmann::json::parse(R"({"a": 4.0, "b": 4.5, "c": 0})");
  const JsonObject root(j, "t.json");
  CHECK(root.integer("a") == 4);
  CHECK(message_of([&] { root.integer("b"); }) == "t.json: /b: must be a whole number (got 4.5)");
  CHECK(message_of([&] { root.positive_integer("c"); }) == "t.json: /c: must be >= 1 (got 0)");
}

TEST_CASE("JsonObject: array elements carry their index in the path", "[sim][io]")
{
  const nlohmann::json j = nlohmann::json::parse(R"({"rows": [{"x": 1}, 7]})");
  const JsonObject root(j, "e.json");
  CHECK(message_of([&] { root.objects("rows"); }) == "e.json: /rows/1: must be an object, not number");
}

TEST_CASE("JsonObject: choice lists the accepted values", "[sim][io]")
{
  const nlohmann::json j = nlohmann::json::parse(R"({"network_model": "udp"})");
  const JsonObject root(j, "t.json");
  CHECK(message_of([&] { root.choice("network_model", {"rdma", "tcp"}); }) ==
        "t.json: /network_model: 'udp' is not one of: rdma, tcp");
}

TEST_CASE("resolve_preset: an unknown preset name lists the known ones", "[sim][io]")
{
  const std::string msg = message_of([] { ccsim::io::resolve_preset("topologies", "no-such-cluster", "--topology"); });
  CHECK_THAT(msg, Catch::StartsWith("--topology: unknown topology preset 'no-such-cluster' (known: "));
}

TEST_CASE("resolve_preset: a missing path is reported as a missing file", "[sim][io]")
{
  CHECK(message_of([] { ccsim::io::resolve_preset("workloads", "./nope.json", "--workload"); }) ==
        "./nope.json: no such file");
}
