// Column alignment and CSV quoting for the tables every subcommand prints.
#include "api/output/Table.hpp"

#include "api/output/Csv.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cassert>
#include <cmath>

namespace ccsim::api {

Table::Table(std::vector<std::string> headers) : headers_(std::move(headers)) {}

void Table::add_row(std::vector<std::string> cells)
{
  assert(cells.size() == headers_.size());
  cells.resize(headers_.size());
  rows_.push_back(std::move(cells));
}

void Table::group(std::size_t first, std::size_t count, std::string title)
{
  assert(count > 0 && first + count <= headers_.size());
  groups_.push_back({first, count, std::move(title)});
}

namespace {
bool looks_numeric(const std::string& s)
{
  if (s.empty())
    return false;
  // Right-align numbers, including "12.5%" and "3.1x": a number, then nothing or one of those suffixes.
  double v              = 0;
  const char* begin     = s.data() + (s[0] == '+' ? 1 : 0);
  const auto [end, ec]  = std::from_chars(begin, s.data() + s.size(), v);
  const std::size_t rest = static_cast<std::size_t>(s.data() + s.size() - end);
  return ec == std::errc() && (rest == 0 || (rest == 1 && (*end == '%' || *end == 'x')));
}
} // namespace

std::vector<std::string> wrap(const std::string& text, std::size_t width)
{
  std::vector<std::string> lines;
  std::string rest = text;
  while (rest.size() > width) {
    std::size_t cut = rest.rfind(' ', width);
    if (cut == std::string::npos || cut == 0)
      cut = width; // no space to break at: a hard break
    lines.push_back(rest.substr(0, cut));
    rest = rest.substr(cut);
    if (!rest.empty() && rest.front() == ' ')
      rest.erase(0, 1);
  }
  lines.push_back(rest);
  return lines;
}

std::string wrap_text(const std::string& text, std::size_t width)
{
  if (width == 0)
    return text;
  std::string out;
  for (const auto& piece : wrap(text, width))
    out += (out.empty() ? "" : "\n") + piece;
  return out;
}

void Table::print(std::ostream& out, std::size_t max_width) const
{
  const std::size_t n = headers_.size();
  std::vector<std::size_t> width(n);
  for (std::size_t c = 0; c < n; ++c) {
    width[c] = headers_[c].size();
    for (const auto& row : rows_)
      width[c] = std::max(width[c], row[c].size());
  }
  // A group's title fits over its columns (the extra width goes to its last column) and is never narrowed below.
  auto span = [&](const Group& g) {
    std::size_t sum = 2 * (g.count - 1);
    for (std::size_t c = g.first; c < g.first + g.count; ++c)
      sum += width[c];
    return sum;
  };
  for (const auto& g : groups_)
    if (const std::size_t have = span(g); have < g.title.size())
      width[g.first + g.count - 1] += g.title.size() - have;
  // Too wide: narrow the widest column one character at a time (never below 10, or its widest number) until the
  // table fits; cells and headers of a narrowed column wrap onto more lines.
  std::vector<std::size_t> floor(n, 10);
  for (std::size_t c = 0; c < n; ++c)
    for (const auto& row : rows_)
      if (looks_numeric(row[c]))
        floor[c] = std::max(floor[c], row[c].size());
  auto total = [&] {
    std::size_t sum = 2 * (n - 1);
    for (const auto w : width)
      sum += w;
    return sum;
  };
  while (max_width > 0 && total() > max_width) {
    std::size_t widest = n;
    for (std::size_t c = 0; c < n; ++c)
      if (width[c] > floor[c] && (widest == n || width[c] > width[widest]))
        widest = c;
    if (widest == n)
      break; // every column is at its floor: print as narrow as it gets
    --width[widest];
  }
  auto line = [&](const std::vector<std::string>& cells, bool header) {
    std::vector<std::vector<std::string>> pieces(n);
    std::size_t lines = 1;
    for (std::size_t c = 0; c < n; ++c) {
      pieces[c] = wrap(cells[c], width[c]);
      lines     = std::max(lines, pieces[c].size());
    }
    for (std::size_t l = 0; l < lines; ++l) {
      std::string text;
      for (std::size_t c = 0; c < n; ++c) {
        const std::string piece = l < pieces[c].size() ? pieces[c][l] : "";
        const bool right        = !header && looks_numeric(cells[c]);
        text += right ? fmt::format("{:>{}}", piece, width[c]) : fmt::format("{:<{}}", piece, width[c]);
        if (c + 1 < n)
          text += "  ";
      }
      while (!text.empty() && text.back() == ' ')
        text.pop_back();
      out << text << '\n';
    }
  };
  if (!groups_.empty()) {
    // The titles at their columns' start, each over its columns: "allreduce (ms)" above paper, predicted, error.
    std::string text;
    std::size_t at = 0, column = 0;
    auto advance_to = [&](std::size_t c) {
      for (; column < c; ++column)
        at += width[column] + 2;
    };
    for (const auto& g : groups_) {
      advance_to(g.first);
      text.resize(std::max(text.size(), at), ' ');
      text += g.title;
    }
    out << text << '\n';
  }
  line(headers_, true);
  std::vector<std::string> rule;
  for (auto w : width)
    rule.emplace_back(w, '-');
  line(rule, true);
  for (const auto& row : rows_)
    line(row, false);
}

void Table::print_csv(std::ostream& out) const
{
  out << csv_line(headers_);
  for (const auto& row : rows_)
    out << csv_line(row);
}

std::string format_number(double value, int digits)
{
  if (!std::isfinite(value))
    return std::isnan(value) ? "nan" : (value > 0 ? "inf" : "-inf");
  if (value == 0)
    return "0";
  const double mag = std::fabs(value);
  if (mag >= 1e9 || mag < 1e-4)
    return fmt::format("{:.{}e}", value, std::max(0, digits - 1));
  const int int_digits = static_cast<int>(std::floor(std::log10(mag))) + 1;
  const int decimals = std::max(0, digits - int_digits);
  return fmt::format("{:.{}f}", value, decimals);
}

} // namespace ccsim::api
