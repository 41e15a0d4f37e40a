// The JSON boundary: every bad input becomes one InputError line "FILE: /json/path: problem".
#include "io/JsonInput.hpp"
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

TEST_CASE("resolve_preset: a missing path is reported as a missing file - a relative one says where it was looked for",
          "[sim][io]")
{
  CHECK(message_of([] { ccsim::io::resolve_preset("workloads", "./nope.json", "--workload"); }) ==
        "./nope.json: no such file (resolved against the working directory)");
  CHECK(message_of([] { ccsim::io::resolve_preset("workloads", "/nonexistent/nope.json", "--workload"); }) ==
        "/nonexistent/nope.json: no such file");
}

TEST_CASE("parse_json_text: a key given twice in one object is an error at its path", "[sim][io]")
{
  auto problem = [](const std::string& text) {
    return message_of([&] { ccsim::io::parse_json_text(text, "t.json"); });
  };
  const std::string twice = "appears twice in one object (JSON would keep only the last; remove one)";
  CHECK(problem(R"({"a": 1, "a": 2})") == "t.json: /a: " + twice);
  CHECK(problem(R"({"nic": {"count": 1, "bandwidth_gbps": 100, "count": 2}})") == "t.json: /nic/count: " + twice);
  // Array elements by index; nested arrays; the first element's objects are fine, the second's is not.
  CHECK(problem(R"({"rows": [{"x": 1}, {"x": 1, "y": [0, {"k": 1, "k": 1}]}]})") == "t.json: /rows/1/y/1/k: " + twice);
  CHECK(problem(R"([[], [{"a": 0}, {"b": 0, "b": {}}]])") == "t.json: /1/1/b: " + twice);
  // Keys compare decoded, and the pointer escapes ~ and / (RFC 6901).
  CHECK(problem(R"({"a": 1, "\u0061": 2})") == "t.json: /a: " + twice);
  CHECK(problem(R"({"p": {"a/b~c": 1, "a/b~c": 1}})") == "t.json: /p/a~1b~0c: " + twice);
  // Containers as values of the duplicate, and after a closed sibling container.
  CHECK(problem(R"({"a": {"z": [1, 2]}, "b": [], "a": [3]})") == "t.json: /a: " + twice);
}

TEST_CASE("parse_json_text: the same key in sibling objects or at other depths is not a duplicate", "[sim][io]")
{
  const auto doc = ccsim::io::parse_json_text(R"({"a": {"a": {"a": 1}}, "b": [{"a": 1}, {"a": 2}], "c": {"a": 3}})",
                                              "t.json");
  CHECK(doc["a"]["a"]["a"] == 1);
  CHECK(doc["b"][1]["a"] == 2);
  CHECK(doc["c"]["a"] == 3);
}

TEST_CASE("parse_json_text: more values than the limit is one line - as many as the limit parse", "[sim][io]")
{
  // One array of n empty objects holds n + 1 values (the array itself). nlohmann's callback parser took O(n^2) on
  // such arrays (issue 33: 100,000 took 9.5 s); the duplicate-key pass is now its own linear SAX pass.
  const auto array_of = [](std::size_t n) {
    std::string text = "[";
    for (std::size_t i = 0; i < n; ++i)
      text += i == 0 ? "{}" : ",{}";
    return text + "]";
  };
  const std::size_t limit = ccsim::io::limits::kMaxJsonValues;
  CHECK(ccsim::io::parse_json_text(array_of(limit - 1), "t.json").size() == limit - 1);
  CHECK(message_of([&] { ccsim::io::parse_json_text(array_of(limit), "t.json"); }) ==
        "t.json: holds more than 1000000 JSON values (numbers, strings, objects, ...): the limit");
  // A duplicate key deep in a long array is still found at its index.
  std::string text = array_of(1000);
  text.insert(text.size() - 1, R"(,{"k": 1, "k": 2})");
  CHECK(message_of([&] { ccsim::io::parse_json_text(text, "t.json"); }) ==
        "t.json: /1000/k: appears twice in one object (JSON would keep only the last; remove one)");
}
