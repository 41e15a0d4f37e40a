// Option texts read by kind (OptionText.hpp). The messages are the command line's since issue 11 (tests/cli and the
// input mutation test hold them): a limit comes from io/Limits.hpp through the option's range, never from here.
#include "api/options/OptionText.hpp"

#include "io/JsonInput.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace ccsim::api {

std::int64_t read_whole(const std::string& text, const Option& o)
{
  const io::Range range = o.range.value_or(io::Range{0, 0});
  if (o.kind != OptionKind::SIZE)
    return io::parse_integer(text, range, o.ref());
  std::string digits   = text;
  std::int64_t scale   = 1;
  const char suffix    = digits.empty() ? '\0' : static_cast<char>(std::toupper(static_cast<unsigned char>(digits.back())));
  if (suffix == 'K' || suffix == 'M' || suffix == 'G') {
    scale = suffix == 'K' ? 1ll << 10 : suffix == 'M' ? 1ll << 20 : 1ll << 30;
    digits.pop_back();
  }
  // The number part alone may not exceed the range once scaled: check it against range / scale first.
  const std::int64_t v = io::parse_integer(digits, io::Range{0, range.hi / static_cast<double>(scale)}, o.ref());
  io::check_range(static_cast<double>(v * scale), range, /*integer=*/true, o.ref());
  return v * scale;
}

double read_number(const std::string& text, const Option& o)
{
  return io::parse_number(text, o.range.value_or(io::Range{0, 0}), o.ref());
}

std::string read_text(const std::string& text, const Option& o)
{
  if (o.choices.empty() || std::find(o.choices.begin(), o.choices.end(), text) != o.choices.end())
    return text;
  std::string known;
  for (const auto& c : o.choices)
    known += (known.empty() ? "" : ", ") + c;
  throw io::InputError(o.ref(), "", io::echo(text) + " is not one of: " + known);
}

bool read_switch(const GivenValue& value, const Option& o)
{
  if (o.kind == OptionKind::FLAG)
    return true;
  return read_text(value.text(), o) == "on";
}

namespace {
/// The most items a list option may hold after repeats are dropped: its own max_items, or io::limits::kMaxListItems.
std::size_t item_cap(const Option& o)
{
  return o.max_items != 0 ? o.max_items : io::limits::kMaxListItems;
}

/// Adds `item` unless it is already in `out` (a repeat would run the same thing twice: ["adam"] * 10**6 is one
/// training, not a million), then holds the list to its cap.
template <class T>
void add_item(std::vector<T>& out, T item, const Option& o)
{
  if (std::find(out.begin(), out.end(), item) != out.end())
    return;
  if (out.size() == item_cap(o))
    throw io::InputError(o.ref(), "", fmt::format("lists more than {} different values", item_cap(o)));
  out.push_back(std::move(item));
}
} // namespace

std::vector<std::int64_t> read_integer_list(const std::string& text, const Option& o)
{
  std::vector<std::int64_t> out;
  std::size_t start = 0;
  while (true) {
    const auto comma = text.find(',', start);
    add_item(out, io::parse_integer(text.substr(start, comma - start), o.range.value_or(io::Range{0, 0}), o.ref()), o);
    if (comma == std::string::npos)
      return out;
    start = comma + 1;
  }
}

std::vector<std::string> read_name_list(const std::string& text, const Option& o)
{
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const auto comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty())
      throw io::InputError(o.ref(), "", io::echo(text) + " has an empty item (give names separated by commas)");
    add_item(out, std::move(item), o);
    if (comma == std::string::npos)
      return out;
    start = comma + 1;
  }
}

std::vector<std::string> read_repeated(const std::vector<std::string>& texts, const Option& o)
{
  std::vector<std::string> out;
  for (const auto& t : texts)
    add_item(out, t, o);
  return out;
}

std::pair<std::string, std::string> read_key_value(const std::string& text, const Option& o)
{
  const auto at = text.find(o.separator);
  if (at == std::string::npos || at == 0 || at + 1 == text.size())
    throw io::InputError(o.ref(), "", io::echo(text) + fmt::format(" is not of the form key{}value", o.separator));
  return {text.substr(0, at), text.substr(at + 1)};
}

InputSource read_source(const GivenValue& value, const Option& o)
{
  if (!value.document)
    return InputSource(value.text());
  if (o.kind != OptionKind::SOURCE)
    throw io::InputError(o.ref(), "", "must be a preset name or a path here, not a document");
  return InputSource::from_document(*value.document, value.text());
}

} // namespace ccsim::api
