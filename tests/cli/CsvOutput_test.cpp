// `--format csv` on every command that prints a table: the header names the JSON document's fields (nested objects as
// "outer.inner", named phases as "phases.<name>.field") and every cell reads back to the value `--format json` gives
// for it. The CSV is parsed here by RFC 4180 on its own, and each column is looked up in the JSON by its name, so a
// column the writer named or formatted wrongly fails.
#include "tests/support/RunCcsim.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <vector>

using ccsim::test::run_ccsim;
using ccsim::test::write_temp_file;
using json = nlohmann::json;

namespace {
/// RFC 4180: fields separated by commas, a quoted field may hold commas, line breaks and doubled quotes.
std::vector<std::vector<std::string>> parse_csv(const std::string& text)
{
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false, was_quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"')
        field += '"', ++i;
      else if (c == '"')
        quoted = false;
      else
        field += c;
    } else if (c == '"' && field.empty() && !was_quoted) {
      quoted = was_quoted = true;
    } else if (c == ',') {
      rows.back().push_back(field), field.clear(), was_quoted = false;
    } else if (c == '\n') {
      rows.back().push_back(field), field.clear(), was_quoted = false;
      rows.emplace_back();
    } else {
      field += c;
    }
  }
  REQUIRE(rows.back().empty()); // the text ends with a line break
  rows.pop_back();
  return rows;
}

/// The value a column names: dots separate levels, but a key may hold dots itself ("params.k"), so the longest key
/// that matches is taken; an array of objects with a "name" is entered by that name.
const json* lookup(const json& doc, const std::string& column)
{
  if (column.empty())
    return &doc;
  for (std::size_t end = column.size(); end != std::string::npos && end > 0; end = column.rfind('.', end - 1)) {
    const std::string key = column.substr(0, end);
    const std::string rest = end < column.size() ? column.substr(end + 1) : "";
    if (doc.is_object() && doc.contains(key)) {
      if (const json* v = lookup(doc[key], rest))
        return v;
    }
    if (doc.is_array())
      for (const auto& e : doc)
        if (e.is_object() && e.value("name", "") == key)
          if (const json* v = lookup(e, rest))
            return v;
    if (end == 0)
      break;
  }
  return nullptr;
}

/// Every cell of `csv` equals the field of its row in `rows` its column names; returns the header. Columns in `timed`
/// hold wall-clock measurements, which differ between the JSON run and the CSV run: there the cell must be a number.
std::vector<std::string> check_csv(const std::string& csv, const std::vector<json>& rows,
                                   const std::vector<std::string>& timed = {"wall_s", "sim.wall_s"})
{
  const auto table = parse_csv(csv);
  REQUIRE(table.size() == rows.size() + 1);
  const auto& header = table[0];
  for (std::size_t r = 0; r < rows.size(); ++r) {
    REQUIRE(table[r + 1].size() == header.size());
    for (std::size_t c = 0; c < header.size(); ++c) {
      INFO("row " << r << ", column " << header[c] << ", cell '" << table[r + 1][c] << "'");
      const json* v = lookup(rows[r], header[c]);
      const std::string& cell = table[r + 1][c];
      if (v == nullptr) {
        CHECK(cell.empty()); // a field this row lacks (another row has it)
      } else if (std::find(timed.begin(), timed.end(), header[c]) != timed.end()) {
        CHECK(std::stod(cell) >= 0);
      } else if (v->is_null()) {
        CHECK(cell.empty());
      } else if (v->is_string()) {
        CHECK(cell == v->get<std::string>());
      } else if (v->is_number()) {
        CHECK(std::stod(cell) == v->get<double>()); // exact: the cell is JSON's own round-trip text
      } else if (v->is_boolean()) {
        CHECK(cell == (v->get<bool>() ? "true" : "false"));
      } else {
        CHECK(json::parse(cell) == *v);
      }
    }
  }
  for (const auto& column : header) { // and every column is a field of some row
    INFO("column " << column);
    CHECK(std::any_of(rows.begin(), rows.end(), [&](const json& row) { return lookup(row, column) != nullptr; }));
  }
  return header;
}

bool has(const std::vector<std::string>& header, const std::string& column)
{
  return std::find(header.begin(), header.end(), column) != header.end();
}

struct Both {
  json doc;
  std::string csv;
};

/// `args` with --format json and with --format csv (`quiet`: the command has --quiet, so no progress on stderr).
Both run_both(const std::string& args, bool quiet = true)
{
  const auto j = run_ccsim(args + " --format json" + (quiet ? " --quiet" : ""));
  const auto c = run_ccsim(args + " --format csv" + (quiet ? " --quiet" : ""));
  INFO(j.err << c.err);
  REQUIRE(j.exit_code == 0);
  REQUIRE(c.exit_code == 0);
  return {json::parse(j.out), c.out};
}

std::vector<json> rows_of(const json& array) { return array.get<std::vector<json>>(); }
} // namespace

TEST_CASE("CSV output: RFC 4180 quoting of commas - quotes and line breaks reads back", "[cli]")
{
  const auto rows = parse_csv("a,\"b,c\",\"say \"\"hi\"\"\",\"two\nlines\"\n");
  REQUIRE(rows.size() == 1);
  CHECK(rows[0] == std::vector<std::string>{"a", "b,c", "say \"hi\"", "two\nlines"});
}

TEST_CASE("simulate --format csv: one row of the JSON document's fields", "[cli]")
{
  const auto b = run_both("simulate --topology v100x4-eth40g --workload bert-large --algorithm onebit-adam --gpus 16");
  const auto header = check_csv(b.csv, {b.doc});
  for (const char* column : {"samples_per_s", "step_time_s", "breakdown.exposed_comm_s", "bytes_per_gpu.inter_node",
                             "memory.fits", "config.topology", "phases.warmup.step_time_s",
                             "phases.compressed.breakdown.allreduce_ms", "intervals.samples_per_s.low", "sim.fidelity"})
    CHECK(has(header, column));
}

TEST_CASE("collective --format csv: nccl-tests' columns with byte rates named GBps", "[cli]")
{
  const auto b      = run_both("collective --topology w1-ring100g --gpus 4,8 -b 1K -e 16K -f 4");
  const auto header = check_csv(b.csv, rows_of(b.doc["rows"]));
  CHECK(has(header, "algbw_GBps"));
  CHECK(has(header, "busbw_GBps"));
  CHECK(b.doc.contains("avg_busbw_GBps"));
  for (const auto& row : b.doc["rows"]) // GB/s = bytes / 1e9 / s, as nccl-tests
    CHECK(row["algbw_GBps"].get<double>() == Approx(row["size"].get<double>() / 1e9 / (row["time_us"].get<double>() * 1e-6)));
}

TEST_CASE("list - train - bench-kernels and advise --format csv: a row per item of the JSON", "[cli]")
{
  const auto l = run_both("list all", false);
  std::vector<json> presets;
  for (const char* kind : {"topologies", "workloads", "algorithms", "experiments"})
    for (auto item : l.doc[kind]) {
      item["kind"] = kind;
      presets.push_back(item);
    }
  CHECK(check_csv(l.csv, presets) == std::vector<std::string>{"description", "kind", "name"});

  const auto t = run_both("train --algorithm adam,onebit-adam --workers 4 --steps 10 --global-batch 64");
  auto runs    = rows_of(t.doc["runs"]);
  const auto th = check_csv(t.csv, runs);
  CHECK(has(th, "final_loss"));
  CHECK_FALSE(has(th, "loss_curve")); // the curves stay in the JSON

  const auto k = run_both("bench-kernels --bytes 65536 --repeats 1", false);
  CHECK(has(check_csv(k.csv, rows_of(k.doc["rows"]), {"GBps", "vs_memcpy"}), "GBps"));

  const auto a = run_both("advise --topology v100x4-eth40g --workload bert-large --gpus 32 --epoch-samples 2e6");
  const auto ah = check_csv(a.csv, rows_of(a.doc["ranking"]));
  CHECK(has(ah, "split.dp"));
  CHECK(has(ah, "samples_per_s_interval.low"));
}

TEST_CASE("experiment --format csv prints results.csv - validate --format csv a row per calibration table", "[cli]")
{
  const auto file = write_temp_file("csv-two.json", R"({"name": "csv-two", "base": {"topology": "v100x4-eth40g",
    "workload": "bert-large", "gpus": 16, "global_batch": 1024, "micro_batch": 16},
    "rows": [{"label": "adam, with a comma", "algorithm": "adam", "paper": {"allreduce_ms": 500}},
             {"label": "1-bit", "algorithm": "onebit-adam"}], "baseline": {"algorithm": "adam"}})");
  const std::string dir = (ccsim::test::temp_dir() / "csv-two").string();
  const auto j = run_ccsim("experiment " + file + " --no-plot --quiet --format json --out " + dir);
  const auto c = run_ccsim("experiment " + file + " --no-plot --quiet --format csv --out " + dir);
  INFO(j.err << c.err);
  REQUIRE(j.exit_code == 0);
  REQUIRE(c.exit_code == 0);
  CHECK(c.out == ccsim::test::read_file(dir + "/results.csv"));
  const auto table = parse_csv(c.out);
  const auto doc   = json::parse(j.out);
  REQUIRE(table.size() == 3);
  const auto col = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(table[0].begin(), table[0].end(), name) - table[0].begin());
  };
  REQUIRE(col("label") < table[0].size());
  CHECK(table[1][col("label")] == "adam, with a comma");
  CHECK(std::stod(table[2][col("speedup")]) == Approx(doc["rows"][1]["speedup"].get<double>()).epsilon(1e-5));
  CHECK(std::stod(table[1][col("paper_allreduce_ms")]) == 500);

  const auto fits = write_temp_file("csv-fits.json", R"({"fits": [{"topology": "v100x4-eth40g",
    "constants": ["/nic/effective_gbps"], "tables": [")" + file + R"("]}]})");
  const auto v = run_both("validate --no-rows --fits " + fits);
  std::vector<json> tables;
  for (const auto& f : v.doc["fits"])
    for (auto tb : f["tables"]) {
      tb["topology"]     = f["topology"];
      tb["single_table"] = f["single_table"];
      tables.push_back(tb);
    }
  CHECK(has(check_csv(v.csv, tables), "in_sample_median_abs_error_pct"));
}
