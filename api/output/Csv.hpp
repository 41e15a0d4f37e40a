#pragma once
// CSV for spreadsheets and pandas, one writer for every command (`--format csv`, an experiment's results.csv):
// RFC 4180 quoting, and JSON rows flattened into columns named as the JSON names them, so a column of the CSV and a
// field of the `--format json` document are the same number.

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace ccsim::api {

/// `cell` as one RFC 4180 field: quoted (with doubled quotes) when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& cell);

/// One CSV line (with its '\n') of `cells`, each quoted by csv_field.
std::string csv_line(const std::vector<std::string>& cells);

/// A JSON value as a CSV cell: a string as it is, a number as JSON writes it (it reads back to the same double),
/// true/false, null as an empty cell, an array or object as its compact JSON text.
std::string csv_cell(const nlohmann::json& value);

/// `row`'s fields as (column, value) pairs in document order: a nested object's fields are named "outer.inner"; an
/// array whose elements are all objects with a string "name" gives "outer.<name>.field" columns (simulate's
/// phases); any other array is one cell of compact JSON. Top-level keys in `omit` are left out (bulky curves and
/// traces that the JSON document carries).
std::vector<std::pair<std::string, nlohmann::json>> flatten_row(const nlohmann::json& row,
                                                                const std::vector<std::string>& omit = {});

/// `rows` (JSON objects) as CSV: a header of every column any row has, in order of first appearance, then one line
/// per row (a column the row lacks is an empty cell).
void write_csv(std::ostream& out, const std::vector<nlohmann::json>& rows, const std::vector<std::string>& omit = {});

} // namespace ccsim::api
