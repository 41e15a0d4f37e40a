// results.csv from typed rows; see ResultsCsv.hpp.
#include "api/experiment/ResultsCsv.hpp"

#include "api/experiment/ExperimentRows.hpp"
#include "api/output/OutputFile.hpp"
#include "api/output/Table.hpp"

#include <functional>
#include <sstream>

namespace ccsim::api {

namespace {
/// A column: its header and its cell of a row ("" where the row has no value).
struct Column {
  std::string header;
  std::function<std::string(const ExperimentRow&)> cell;
};

std::string number(double v) { return format_number(v, 6); }

/// A number only rows that ran have.
Column ran_number(std::string header, std::function<double(const ExperimentRow&)> value)
{
  return {std::move(header), [value](const ExperimentRow& r) { return r.ran() ? number(value(r)) : ""; }};
}

std::vector<Column> columns(const std::vector<ExperimentRow>& rows)
{
  std::vector<Column> cols;
  for (const auto& axis : axis_columns(rows))
    cols.push_back({axis, [axis](const ExperimentRow& r) { return axis_cell(r, axis); }});
  cols.push_back({"label", [](const ExperimentRow& r) { return r.label; }});
  for (const auto& m : metric_table())
    cols.push_back(ran_number(m.name, [metric = m.metric](const ExperimentRow& r) { return r.metric(metric); }));
  cols.push_back({"speedup", [](const ExperimentRow& r) { return r.speedup ? number(r.speedup->value) : ""; }});
  cols.push_back({"speedup_over", [](const ExperimentRow& r) { return r.speedup ? r.speedup->over : ""; }});
  cols.push_back({"scaling_efficiency",
                  [](const ExperimentRow& r) { return r.scaling_efficiency ? number(*r.scaling_efficiency) : ""; }});
  cols.push_back(ran_number("memory_gb_per_gpu", [](const ExperimentRow& r) { return r.memory_gb_per_gpu; }));
  cols.push_back({"fits_memory", [](const ExperimentRow& r) { return r.ran() ? to_string(r.fits_memory) : ""; }});
  // Each headline metric's likely range (api/run/Intervals.hpp): <metric>_low and <metric>_high.
  for (const auto& m : metric_table()) {
    if (m.interval == IntervalRule::NONE)
      continue;
    for (const bool low : {true, false})
      cols.push_back({std::string(m.name) + (low ? "_low" : "_high"), [metric = m.metric, low](const ExperimentRow& r) {
                        const auto it = r.intervals.find(metric);
                        return it == r.intervals.end() ? "" : number(low ? it->second.low : it->second.high);
                      }});
  }
  for (const auto& metric : paper_metrics(rows)) {
    auto paper = [metric](const ExperimentRow& r) { return r.paper_value(metric); };
    cols.push_back(
        {"paper_" + metric, [paper](const ExperimentRow& r) { return paper(r) ? number(paper(r)->paper) : ""; }});
    cols.push_back({"predicted_" + metric,
                    [paper](const ExperimentRow& r) { return paper(r) ? number(paper(r)->predicted) : ""; }});
    cols.push_back({"error_pct_" + metric,
                    [paper](const ExperimentRow& r) { return paper(r) ? number(paper(r)->error_pct) : ""; }});
  }
  cols.push_back({"error", [](const ExperimentRow& r) { return r.error.value_or(""); }});
  return cols;
}
} // namespace

std::string results_csv(const std::vector<ExperimentRow>& rows)
{
  const auto cols = columns(rows);
  std::vector<std::string> headers;
  for (const auto& c : cols)
    headers.push_back(c.header);
  Table t(headers);
  for (const auto& r : rows) {
    std::vector<std::string> cells;
    for (const auto& c : cols)
      cells.push_back(c.cell(r));
    t.add_row(cells);
  }
  std::ostringstream text;
  t.print_csv(text);
  return text.str();
}

void write_results_csv(const std::filesystem::path& file, const std::vector<ExperimentRow>& rows)
{
  write_output_file(file, results_csv(rows), "--out");
}

} // namespace ccsim::api
