#pragma once
// Plain-text tables for people (aligned columns, units in the headers) and CSV for spreadsheets.

#include <ostream>
#include <string>
#include <vector>

namespace ccsim::api {

class Table {
public:
  explicit Table(std::vector<std::string> headers);
  void add_row(std::vector<std::string> cells); // must have one cell per header
  void print(std::ostream& out) const;           // aligned text; numeric-looking cells right-aligned
  void print_csv(std::ostream& out) const;       // RFC 4180 quoting
  std::size_t rows() const { return rows_.size(); }

private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

/// Formats a number with `digits` significant digits, without trailing noise ("1.23e+04" avoided below 1e9).
std::string format_number(double value, int digits = 4);

} // namespace ccsim::api
