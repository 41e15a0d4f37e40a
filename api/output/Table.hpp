#pragma once
// Plain-text tables for people (aligned columns, units in the headers) and CSV for spreadsheets.

#include <ostream>
#include <string>
#include <vector>

namespace ccsim::api {

/// Tables wider than this wrap their long cells (Table::print) unless the command line's --wide is given.
inline constexpr std::size_t kTableWidth = 160;

class Table {
public:
  explicit Table(std::vector<std::string> headers);
  void add_row(std::vector<std::string> cells); // must have one cell per header
  /// A title over `count` columns from `first` (a line above the headers): "allreduce (ms)" over its paper, predicted
  /// and error columns, so that each of them needs only a short header. Its columns widen to hold the title.
  void group(std::size_t first, std::size_t count, std::string title);
  /// Aligned text, numeric-looking cells right-aligned. With `max_width` > 0 a table wider than that narrows its
  /// widest columns (to 10 characters at least, never cutting a number) and wraps their cells onto more lines.
  void print(std::ostream& out, std::size_t max_width = 0) const;
  void print_csv(std::ostream& out) const;       // RFC 4180 quoting
  std::size_t rows() const { return rows_.size(); }

private:
  struct Group {
    std::size_t first, count;
    std::string title;
  };
  std::vector<std::string> headers_;
  std::vector<Group> groups_;
  std::vector<std::vector<std::string>> rows_;
};

/// `text` cut into lines of at most `width` characters, at spaces where it can (a word longer than that is cut).
std::vector<std::string> wrap(const std::string& text, std::size_t width);
/// The same joined with newlines; `width` 0 leaves the text as it is.
std::string wrap_text(const std::string& text, std::size_t width);

/// Formats a number with `digits` significant digits, without trailing noise ("1.23e+04" avoided below 1e9).
std::string format_number(double value, int digits = 4);

} // namespace ccsim::api
