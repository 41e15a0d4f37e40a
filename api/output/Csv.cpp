// The one CSV writer: RFC 4180 fields, JSON rows flattened to named columns. See Csv.hpp.
#include "api/output/Csv.hpp"

#include "io/JsonInput.hpp"
#include "io/SafeText.hpp"

#include <algorithm>
#include <map>

namespace ccsim::api {

std::string csv_field(const std::string& raw)
{
  // A name from an input file may hold control characters: a spreadsheet or `cat` of the file shows them escaped.
  const std::string cell = io::safe_text(raw);
  if (cell.find_first_of(",\"\r\n") == std::string::npos)
    return cell;
  std::string q = "\"";
  for (const char ch : cell)
    q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return q + "\"";
}

std::string csv_line(const std::vector<std::string>& cells)
{
  std::string line;
  for (std::size_t c = 0; c < cells.size(); ++c)
    line += (c ? "," : "") + csv_field(cells[c]);
  return line + "\n";
}

std::string csv_cell(const nlohmann::json& value)
{
  if (value.is_null())
    return "";
  if (value.is_string())
    return value.get<std::string>();
  return io::dump_json(value); // numbers: the shortest text that reads back to the same double
}

namespace {
bool named_objects(const nlohmann::json& array)
{
  return !array.empty() && std::all_of(array.begin(), array.end(), [](const nlohmann::json& e) {
    return e.is_object() && e.contains("name") && e["name"].is_string();
  });
}

void flatten_into(const std::string& prefix, const nlohmann::json& value,
                  std::vector<std::pair<std::string, nlohmann::json>>& out)
{
  if (value.is_object() && !value.empty()) {
    for (const auto& [key, v] : value.items())
      flatten_into(prefix.empty() ? key : prefix + "." + key, v, out);
  } else if (value.is_array() && named_objects(value)) {
    for (const auto& e : value) {
      nlohmann::json rest = e;
      rest.erase("name");
      flatten_into(prefix + "." + e["name"].get<std::string>(), rest, out);
    }
  } else {
    out.emplace_back(prefix, value);
  }
}
} // namespace

std::vector<std::pair<std::string, nlohmann::json>> flatten_row(const nlohmann::json& row,
                                                                const std::vector<std::string>& omit)
{
  std::vector<std::pair<std::string, nlohmann::json>> out;
  for (const auto& [key, v] : row.items())
    if (std::find(omit.begin(), omit.end(), key) == omit.end())
      flatten_into(key, v, out);
  return out;
}

void write_csv(std::ostream& out, const std::vector<nlohmann::json>& rows, const std::vector<std::string>& omit)
{
  std::vector<std::string> columns;
  std::map<std::string, std::size_t> index;
  std::vector<std::vector<std::pair<std::string, nlohmann::json>>> flat;
  for (const auto& row : rows) {
    flat.push_back(flatten_row(row, omit));
    for (const auto& [column, v] : flat.back())
      if (index.emplace(column, columns.size()).second)
        columns.push_back(column);
  }
  out << csv_line(columns);
  for (const auto& cells : flat) {
    std::vector<std::string> line(columns.size());
    for (const auto& [column, v] : cells)
      line[index.at(column)] = csv_cell(v);
    out << csv_line(line);
  }
}

} // namespace ccsim::api
